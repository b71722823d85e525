// The certificate flow for real: svc-apiserver (client certificates of the cluster CA, bootstrap
// tokens), svc-controller-manager signing with that CA (certificates live 20 s here), and a real
// node agent on containerd given only a bootstrap token. The agent's client certificate request is
// approved by csrapproving (the token's group may ask for node client certificates) and signed; the
// agent writes its svcconfig and registers its Node as system:node:<name>; it renews its client
// certificate before expiry (approved as selfnodeclient) and goes on heartbeating past the first
// certificate's end; its serving certificate waits for `kubectl certificate approve`, then serves.
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client, loadSvcconfig, writeSvcconfig } from '../../src/client/index.js';
import { ensureClientCertificate, csrState, NODE_CLIENT_SIGNER, NODE_SERVING_SIGNER } from '../../src/pki/index.js';
import { mountsUnder } from '../../src/nodeagent/index.js';
import { silentLog, type RunningControllerManager } from '../../controllers/manager/index.js';
import { startControllerManagerFromArgs } from '../../src/cli/controller-manager-command.js';
import { startApiServer, type RunningApiServer } from '../support/api-server.js';
import { startContainerd, type RunningContainerd } from '../support/containerd.js';
import { kubectl, requireKubectl } from '../support/kubectl.js';
import { agentDirs, freePort, spawnAgent, uniqueNodeName, unmountUnder, writeAgentConfig, type AgentProcess } from '../nodeagent/daemon/support.js';
import { eventually } from '../controllers/support.js';

const dir = mkdtempSync('/tmp/svc-tls-bootstrap-');
const dataDir = join(dir, 'api');
const nodeName = uniqueNodeName('bootstrap');
const TOKEN_ID = 'abcdef';
const TOKEN_SECRET = '0123456789abcdef';
const LIFETIME_MS = 20_000;

let containerd: RunningContainerd;
let server: RunningApiServer;
let manager: RunningControllerManager;
let client: Client;
let agent: AgentProcess | undefined;
let certDir: string;
let agentSvcconfig: string;
let agentPort: number;

const csrs = async () => (await client.list(builtin.certificateSigningRequests)).items;

/** The certificate the agent serves on its port. */
function servedCertificate(port: number): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const peer = socket.getPeerX509Certificate();
      socket.end();
      if (peer) resolve(peer);
      else reject(new Error('no peer certificate'));
    });
    socket.on('error', reject);
  });
}

beforeAll(async () => {
  requireKubectl();
  containerd = await startContainerd();
  const pki = join(dataDir, 'pki');
  const proxyCert = await ensureClientCertificate(pki, 'node-agent-client', { commonName: 'svc-apiserver-node-agent-client', organizations: ['system:masters'] });
  server = await startApiServer({
    dataDir,
    storage: 'memory',
    bindAddress: '127.0.0.1',
    securePort: 0,
    clientCaFile: join(pki, 'ca.crt'),
    nodeAgent: { clientCertificateFile: proxyCert.certFile, clientKeyFile: proxyCert.keyFile },
  });
  client = await Client.fromSvcconfig(server.svcconfigPath);
  manager = await startControllerManagerFromArgs(
    [
      `--svcconfig=${server.svcconfigPath}`,
      '--secure-port=0',
      `--cluster-signing-cert-file=${join(pki, 'ca.crt')}`,
      `--cluster-signing-key-file=${join(pki, 'ca.key')}`,
      `--cluster-signing-duration=${LIFETIME_MS / 1000}s`,
    ],
    silentLog,
  );
  const data = (value: string) => Buffer.from(value).toString('base64');
  await client.create(builtin.secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${TOKEN_ID}`, namespace: 'svc-system' },
    type: 'bootstrap.kubernetes.io/token',
    data: { 'token-id': data(TOKEN_ID), 'token-secret': data(TOKEN_SECRET), 'usage-bootstrap-authentication': data('true') },
  });
  const admin = await loadSvcconfig(server.svcconfigPath);
  const dirs = agentDirs(join(dir, 'node'));
  certDir = dirs.certDir;
  const bootstrapSvcconfig = join(dir, 'bootstrap.svcconfig');
  await writeSvcconfig(bootstrapSvcconfig, { name: 'bootstrap', server: admin.server, caData: admin.caData, token: `${TOKEN_ID}.${TOKEN_SECRET}` });
  agentSvcconfig = join(dir, 'node', 'nodeagent.svcconfig');
  agentPort = await freePort();
  writeAgentConfig(dirs.config, { endpoint: containerd.endpoint, port: agentPort, clientCaFile: join(pki, 'ca.crt') });
  agent = spawnAgent([
    '--config', dirs.config,
    '--bootstrap-svcconfig', bootstrapSvcconfig,
    '--svcconfig', agentSvcconfig,
    '--root-dir', dirs.rootDir,
    '--cert-dir', dirs.certDir,
    '--hostname-override', nodeName,
    '--rotate-certificates',
    '--rotate-server-certificates',
  ]);
  await agent.running();
}, 180_000);

afterAll(async () => {
  await agent?.stop();
  await manager?.close();
  await client?.close();
  await server?.close();
  await containerd?.stop();
  unmountUnder(dir);
  expect(mountsUnder(dir)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('node TLS bootstrap with a bootstrap token', () => {
  it('gets a node client certificate approved and signed, writes its svcconfig and registers its Node as that node', async () => {
    const first = (await csrs()).find((c) => c.spec.username === `system:bootstrap:${TOKEN_ID}`);
    expect(first?.spec.signerName).toBe(NODE_CLIENT_SIGNER);
    expect(first?.spec.groups).toContain('system:bootstrappers');
    expect(first && csrState(first)).toBe('issued');
    expect(first?.status?.conditions?.find((c) => c.type === 'Approved')?.reason).toBe('AutoApproved');
    expect(existsSync(agentSvcconfig)).toBe(true);
    const target = await loadSvcconfig(agentSvcconfig);
    expect(target.token).toBeUndefined();
    expect(new X509Certificate(target.clientCertificate!).subject).toContain(`CN=system:node:${nodeName}`);
    await eventually(async () => (await client.list(builtin.nodes)).items.some((n) => n.metadata.name === nodeName), 'the Node registered');
  });

  it('the bootstrap token alone may not read nodes (it is no node)', async () => {
    const admin = await loadSvcconfig(server.svcconfigPath);
    const asToken = new Client({ server: admin.server, caData: admin.caData, token: `${TOKEN_ID}.${TOKEN_SECRET}` });
    const wrongSecret = new Client({ server: admin.server, caData: admin.caData, token: `${TOKEN_ID}.ffffffffffffffff` });
    try {
      await expect(asToken.get(builtin.nodes, nodeName)).rejects.toMatchObject({ code: 403 });
      await expect(wrongSecret.list(builtin.certificateSigningRequests)).rejects.toMatchObject({ code: 401 });
    } finally {
      await asToken.destroy();
      await wrongSecret.destroy();
    }
  });

  it('serves a certificate of the serving signer once `kubectl certificate approve` approves its request', async () => {
    let serving: string | undefined;
    await eventually(async () => {
      serving = (await csrs()).find((c) => c.spec.signerName === NODE_SERVING_SIGNER && csrState(c) === 'pending')?.metadata.name;
      return serving !== undefined;
    }, 'a pending serving request');
    const before = await servedCertificate(agentPort);
    expect(before.subject).not.toContain(`CN=system:node:${nodeName}`);
    const approved = await kubectl(server.svcconfigPath, ['certificate', 'approve', serving!]);
    expect(approved.code, approved.stderr).toBe(0);
    await eventually(async () => (await servedCertificate(agentPort)).subject.includes(`CN=system:node:${nodeName}`), 'the agent serving the issued certificate');
    const served = await servedCertificate(agentPort);
    expect(served.verify(new X509Certificate(readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8')).publicKey)).toBe(true);
    expect(served.subjectAltName).toContain(`DNS:${nodeName}`);
  }, 60_000);

  it('renews its client certificate before it expires (approved as selfnodeclient) and keeps heartbeating past the first one', async () => {
    const firstCert = new X509Certificate(readFileSync(join(certDir, 'nodeagent-client-current.crt'), 'utf8'));
    const stored = () => new X509Certificate(readFileSync(join(certDir, 'nodeagent-client-current.crt'), 'utf8'));
    await eventually(() => stored().serialNumber !== firstCert.serialNumber, 'a renewed client certificate stored', 40_000);
    const renewed = stored();
    expect(renewed.subject).toContain(`CN=system:node:${nodeName}`);
    expect(Date.parse(renewed.validFrom)).toBeLessThan(Date.parse(firstCert.validTo));
    const renewal = (await csrs()).find((c) => c.spec.username === `system:node:${nodeName}` && c.spec.signerName === NODE_CLIENT_SIGNER);
    expect(renewal && csrState(renewal)).toBe('issued');
    expect(renewal?.status?.conditions?.find((c) => c.type === 'Approved')?.reason).toBe('AutoApproved');
    expect(Date.parse(renewed.validTo)).toBeGreaterThan(Date.parse(firstCert.validTo));
    // Past the first certificate's end, the node's Lease is still renewed: the agent uses the new one.
    const firstEnd = Date.parse(firstCert.validTo);
    await eventually(async () => {
      const lease = await client.get(builtin.leases, nodeName, { namespace: 'svc-node-lease' });
      return Date.parse(lease.spec?.renewTime ?? '') > firstEnd + 1000;
    }, 'a heartbeat after the first certificate expired', 60_000);
  }, 120_000);
});
