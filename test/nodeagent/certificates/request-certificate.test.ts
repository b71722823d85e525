// The node agent's certificate request: created, then waited for by a watch of that one request
// until it is issued, denied or failed (or deleted, or the agent stops), against a real API server;
// the approver and signer are played through the API, as kubectl and the csrsigning loop write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CertificateSigningRequest } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import { CertificateRequestRefused, requestCertificate, type CertificateAsk } from '../../../src/nodeagent/certificates/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { FIXTURE_CERTIFICATES } from '../../support/pem-fixtures.js';

let cluster: TestCluster;
let client: Client;
beforeAll(async () => {
  cluster = await startTestCluster();
  client = cluster.client;
});
afterAll(() => cluster.stop());

const ask = (extra: Partial<CertificateAsk> = {}) => {
  let named: (name: string) => void = () => undefined;
  const created = new Promise<string>((resolve) => (named = resolve));
  return {
    created,
    ask: { signerName: 'example.com/nodes', usages: ['client auth'], commonName: 'system:node:n1', organizations: ['system:nodes'], onCreated: (name: string) => named(name), ...extra } satisfies CertificateAsk,
  };
};

async function setConditions(name: string, type: 'Approved' | 'Denied' | 'Failed', reason: string): Promise<void> {
  const csr = await client.get(builtin.certificateSigningRequests, name);
  const condition = { type, status: 'True' as const, reason, message: `by the test: ${reason}` };
  const next = { ...csr, status: { ...csr.status, conditions: [...(csr.status?.conditions ?? []), condition] } };
  // Approvals and denials through /approval (kubectl certificate approve), a signer's failure through /status.
  if (type === 'Failed') await client.updateStatus(builtin.certificateSigningRequests, next);
  else await client.updateApproval(builtin.certificateSigningRequests, next);
}

async function sign(name: string, certificate: string): Promise<void> {
  const csr: CertificateSigningRequest = await client.get(builtin.certificateSigningRequests, name);
  await client.updateStatus(builtin.certificateSigningRequests, { ...csr, status: { ...csr.status, certificate } });
}

/** The request's failure, caught at once (the wait may end before the test looks at it). */
const failureOf = (pair: Promise<unknown>): Promise<Error> =>
  pair.then(
    () => new Error('the certificate was issued'),
    (error: unknown) => error as Error,
  );

describe('requestCertificate', () => {
  it('waits while the request is pending and approved, and answers once the certificate is written', async () => {
    const { ask: a, created } = ask();
    let settled = false;
    const pair = requestCertificate(client, a).finally(() => (settled = true));
    const name = await created;
    await setConditions(name, 'Approved', 'ByTest');
    // Approved but not signed: still waiting (the watch has seen the approval by the time the certificate lands).
    expect(settled).toBe(false);
    await sign(name, FIXTURE_CERTIFICATES[0]);
    const issued = await pair;
    expect(issued.cert).toBe(Buffer.from(FIXTURE_CERTIFICATES[0], 'base64').toString('utf8'));
    expect(issued.key).toContain('PRIVATE KEY');
  });

  it('fails with the condition\'s reason when the request is denied or failed', async () => {
    for (const [type, state] of [['Denied', 'denied'], ['Failed', 'failed']] as const) {
      const { ask: a, created } = ask();
      const failure = failureOf(requestCertificate(client, a));
      const name = await created;
      if (type === 'Failed') await setConditions(name, 'Approved', 'ByTest');
      await setConditions(name, type, 'NotThisOne');
      const error = await failure;
      expect(error).toBeInstanceOf(CertificateRequestRefused);
      expect(error.message).toBe(`certificate signing request ${name} was ${state}: NotThisOne by the test: NotThisOne`);
    }
  });

  it('fails when the request is deleted before it is issued', async () => {
    const { ask: a, created } = ask();
    const failure = failureOf(requestCertificate(client, a));
    const name = await created;
    await client.delete(builtin.certificateSigningRequests, name);
    expect((await failure).message).toBe(`certificate signing request ${name} was deleted before it was issued`);
  });

  it('stops waiting when the agent stops (its signal aborts)', async () => {
    const stop = new AbortController();
    const { ask: a, created } = ask({ signal: stop.signal });
    const failure = failureOf(requestCertificate(client, a));
    await created;
    stop.abort(new Error('the agent is stopping'));
    expect((await failure).message).toBe('the agent is stopping');
  });
});
