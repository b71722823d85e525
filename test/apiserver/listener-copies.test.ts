/**
 * The API server accepts through listener copies (src/listening): a burst of clients that connect
 * while its event loop is blocked — so all but one of them are accepted by a copy — authenticate
 * with their TLS client certificates and are audited with their own address, exactly as
 * connections its own handle accepts. `--listen-backlog` above net.core.somaxconn is capped, and
 * the server says so.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from '../../src/cli/apiserver-command.js';
import { readSomaxconn } from '../../src/listening/index.js';
import { connectWhileBlocked } from '../support/blocked-loop-clients.js';
import { makeCa, makeClientCert, type TestCa, type TestClientCert } from '../support/client-certs.js';

const BURST = 40;
const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: Metadata
`;

interface AuditLine {
  readonly user: { readonly username: string };
  readonly sourceIPs: readonly string[];
  readonly requestURI: string;
  readonly stage: string;
}

describe('the API server through listener copies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-listener-copies-'));
  const auditLog = join(dir, 'audit.log');
  const logs: string[] = [];
  let ca: TestCa;
  let client: TestClientCert;
  let server: RunningApiServer;
  beforeAll(async () => {
    ca = await makeCa('burst-ca');
    client = await makeClientCert(ca, { cn: 'burst-user', organizations: ['system:masters'] });
    writeFileSync(join(dir, 'ca.pem'), ca.pem);
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    server = await startApiServer({
      dataDir: join(dir, 'data'),
      storage: 'memory',
      bindAddress: '127.0.0.1',
      securePort: 0,
      clientCaFile: join(dir, 'ca.pem'),
      endpointReconcilerType: 'none',
      audit: { logPath: auditLog, policyFile: join(dir, 'policy.yaml') },
      // More than any kernel allows: the cap is logged.
      listenBacklog: 1_000_000,
      logStream: new Writable({
        write(chunk: Buffer, _encoding, done) {
          logs.push(chunk.toString('utf8'));
          done();
        },
      }),
    });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens with the default copies and logs the capped backlog', () => {
    expect(server.listenerCopies).toBe(63);
    const somaxconn = readSomaxconn();
    if (somaxconn !== undefined) expect(logs.join('')).toContain(`the listen backlog 1000000 is capped at ${somaxconn} by net.core.somaxconn`);
  });

  it('authenticates and audits a burst that waited on its blocked loop, each by its own certificate and address', async () => {
    const burst = await connectWhileBlocked({
      port: server.port,
      count: BURST,
      https: { path: '/api/v1/namespaces/default', ca: server.caPem ?? '', cert: client.cert, key: client.key },
    });
    try {
      const answers = await burst.answers();
      expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: BURST }, () => 200));
      expect(JSON.parse(answers[0]?.body ?? '{}')).toMatchObject({ kind: 'Namespace', metadata: { name: 'default' } });
    } finally {
      await burst.close();
    }
    await server.close();
    const audited = readFileSync(auditLog, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as AuditLine)
      .filter((event) => event.requestURI === '/api/v1/namespaces/default' && event.stage === 'ResponseComplete');
    expect(audited).toHaveLength(BURST);
    for (const event of audited) {
      expect(event.user.username).toBe('burst-user');
      expect(event.sourceIPs).toEqual(['127.0.0.1']);
    }
  });
});
