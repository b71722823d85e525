/**
 * A real svc-apiserver for the volume and env tests: memory store, plain HTTP on 127.0.0.1, the
 * admin token, and service-account tokens (so TokenRequest works and its tokens can be read back).
 */
import { generateKeyPairSync } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/apiserver/index.js';
import { createDefaultAccount } from '../../support/namespace-with-account.js';
import { ServiceAccountTokens, signingKeyFromPem, unionAuthenticator } from '../../../src/apiserver/authn/index.js';
import { Client } from '../../../src/client/index.js';
import { MemoryStore } from '../../../src/storage/index.js';

const ADMIN = 'volumes-admin-token';
export const ISSUER = 'https://svc.test';
export const AUDIENCES = ['https://svc.test'];

export interface VolumesApiServer {
  readonly app: FastifyInstance;
  readonly client: Client;
  /** The verifier's clock, ms since the epoch: moving it ages the tokens it minted. */
  readonly clock: { now: number };
  close(): Promise<void>;
}

export async function startVolumesApiServer(): Promise<VolumesApiServer> {
  const store = new MemoryStore();
  const clock = { now: Date.now() };
  const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const tokens = new ServiceAccountTokens({
    issuers: [ISSUER],
    audiences: AUDIENCES,
    signingKey: signingKeyFromPem(pem, 'volumes-test'),
    verificationKeys: [],
    now: () => clock.now,
  });
  const authentication = unionAuthenticator({
    tokens: [{ token: ADMIN, user: { name: 'admin', uid: 'admin', groups: ['system:masters'] } }],
    serviceAccounts: tokens,
    anonymous: false,
  });
  const app = await buildApp({
    store,
    authenticate: authentication.authenticate,
    authenticateToken: authentication.authenticateToken,
    serviceAccountTokens: tokens,
    // Dual stack, holding the cluster IPs the Service fixtures name (the default range is 10.0.0.0/24 alone).
    serviceNetwork: { clusterIpRange: '10.96.0.0/16,fd00::/108' },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the test server has no TCP address');
  const client = new Client({ server: `http://127.0.0.1:${address.port}`, token: ADMIN, namespace: 'default' });
  // Pods need their account; no serviceaccount loop runs here.
  await createDefaultAccount(client, 'default');
  return {
    app,
    client,
    clock,
    async close() {
      await client.destroy();
      await app.close();
      await store.close();
    },
  };
}
