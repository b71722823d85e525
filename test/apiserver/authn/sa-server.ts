import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../../src/apiserver/index.js';
import { keyId, ServiceAccountTokens, signingKeyFromPem, unionAuthenticator, type Authentication, type SigningKey } from '../../../src/apiserver/authn/index.js';
import { MemoryStore } from '../../../src/storage/index.js';

export const ADMIN = 'admin-token-for-tests';
export const ISSUER = 'https://issuer.example';
export const OTHER_ISSUER = 'https://old-issuer.example';

export interface SaServer {
  app: FastifyInstance;
  store: MemoryStore;
  tokens: ServiceAccountTokens;
  authentication: Authentication;
  signingKey: SigningKey;
  /** Moves the verifier's clock (ms since the epoch). */
  clock: { now: number };
  call(method: string, url: string, options?: { token?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export function pemOf(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

export const rsaKey = () => signingKeyFromPem(pemOf(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey), 'test');
export const ecKey = (namedCurve = 'P-256') => signingKeyFromPem(pemOf(generateKeyPairSync('ec', { namedCurve }).privateKey), 'test');

/** The API server (memory store, inject) with service-account tokens and the union authenticator. */
export async function startSaServer(options: { signingKey?: SigningKey; extraKeys?: KeyObject[]; anonymous?: boolean; maxExpirationSeconds?: number } = {}): Promise<SaServer> {
  const store = new MemoryStore();
  const clock = { now: Date.now() };
  const signingKey = options.signingKey ?? ecKey();
  const tokens = new ServiceAccountTokens({
    issuers: [ISSUER, OTHER_ISSUER],
    audiences: ['api', 'other-api'],
    signingKey,
    verificationKeys: (options.extraKeys ?? []).map((key) => ({ kid: keyId(key), key })),
    maxExpirationSeconds: options.maxExpirationSeconds,
    now: () => clock.now,
  });
  const authentication = unionAuthenticator({
    tokens: [{ token: ADMIN, user: { name: 'admin', uid: 'admin', groups: ['system:masters'] } }],
    serviceAccounts: tokens,
    anonymous: options.anonymous ?? false,
  });
  const app = await buildApp({ store, authenticate: authentication.authenticate, authenticateToken: authentication.authenticateToken, serviceAccountTokens: tokens });
  return {
    app,
    store,
    tokens,
    authentication,
    signingKey,
    clock,
    async call(method, url, { token = ADMIN, body, headers = {} } = {}) {
      const res = await app.inject({
        method: method as InjectOptions['method'],
        url,
        headers: {
          ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      let parsed: unknown = res.body;
      try {
        parsed = JSON.parse(res.body);
      } catch {
        // not JSON
      }
      return { status: res.statusCode, body: parsed };
    },
    async close() {
      await app.close();
      await store.close();
    },
  };
}

