// `svc up --node-bootstrap-token`: the node joins with a bootstrap token that svc up makes and
// shows, not with the admin credential. Its agent's client certificate comes from a
// CertificateSigningRequest the token made (approved by csrapproving, signed with the cluster CA),
// its svcconfig names that certificate, and the node becomes Ready under system:node:<name>.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client, loadSvcconfig } from '../../src/client/index.js';
import { csrState, NODE_CLIENT_SIGNER } from '../../src/pki/index.js';
import { eventually } from '../controllers/support.js';
import { spawnUp, type UpProcess } from '../support/svc-up.js';

// Short: containerd's socket lives under it and unix socket paths are capped at 107 bytes.
const dir = mkdtempSync('/tmp/svc-upbt-');
let up: UpProcess;
let client: Client;
let token: string;

beforeAll(async () => {
  up = spawnUp(dir, ['--node-bootstrap-token']);
  const shown = await up.line((line) => line.startsWith('node bootstrap token: '));
  token = /^node bootstrap token: (\S+)/.exec(shown)![1]!;
  await up.line((line) => line.startsWith('  kubectl'));
  client = await Client.fromSvcconfig(join(dir, 'admin.svcconfig'));
}, 120_000);

afterAll(async () => {
  await client?.destroy();
  if (up && up.child.exitCode === null) {
    up.child.kill('SIGTERM');
    await up.exited;
  }
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('svc up with a bootstrap token for its node', () => {
  it('shows a token of the bootstrap form, backed by a Secret in svc-system', async () => {
    expect(token).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    const secret = await client.get(builtin.secrets, `bootstrap-token-${token.split('.')[0]}`, { namespace: 'svc-system' });
    expect(secret.type).toBe('bootstrap.kubernetes.io/token');
  });

  it('the node joins as system:node:<name> with a certificate from its TLS bootstrap, and is Ready', async () => {
    const requests = (await client.list(builtin.certificateSigningRequests)).items;
    const bootstrap = requests.find((c) => c.spec.username === `system:bootstrap:${token.split('.')[0]}`);
    expect(bootstrap?.spec.signerName).toBe(NODE_CLIENT_SIGNER);
    expect(bootstrap && csrState(bootstrap)).toBe('issued');
    const agentConfig = await loadSvcconfig(join(dir, 'agent', 'nodeagent.svcconfig'));
    expect(agentConfig.token).toBeUndefined();
    const subject = new X509Certificate(agentConfig.clientCertificate!).subject;
    const node = /CN=system:node:(\S+)/.exec(subject)?.[1];
    expect(node).toBeDefined();
    expect(readFileSync(join(dir, 'agent', 'bootstrap.svcconfig'), 'utf8')).toContain(token);
    await eventually(async () => {
      const found = await client.get(builtin.nodes, node!).catch(() => undefined);
      return found?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
    }, 'the node Ready', 60_000);
  }, 90_000);
});
