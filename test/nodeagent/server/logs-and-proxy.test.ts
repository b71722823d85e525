/**
 * Container logs, log rotation and the API server's proxy to the agent, end to end: a real
 * containerd runs busybox containers labelled as the pod workers label them (contracts-na.md),
 * the agent server reads their CRI log files, and a real svc-apiserver forwards `pods/log`,
 * `pods/exec`, `pods/portforward` and `nodes/proxy` to it with its client certificate — driven
 * by kubectl 1.32 and by a WebSocket client.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client } from '../../../src/client/index.js';
import { startApiServer, type RunningApiServer } from '../../support/api-server.js';
import {
  BUSYBOX_IMAGE,
  LogRotator,
  rotatedFiles,
  startAgentServer,
  type Input,
  type PodSandboxConfig,
  type RunningAgentServer,
} from '../../../src/nodeagent/index.js';
import { makeCa, makeClientCert } from '../../support/client-certs.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { kubectl, requireKubectl } from '../../support/kubectl.js';
import { agentFlags, call, echoRoutes } from './support.js';

const NODE = 'node-logs';
const dir = mkdtempSync(join(tmpdir(), 'svc-agent-logs-'));
let containerd: RunningContainerd;
let api: RunningApiServer;
let admin: Client;
let agent: RunningAgentServer;
let open: RunningAgentServer;
const sandboxes: string[] = [];
let talkerUid = '';
let rotorUid = '';
let mainId = '';
let rotorId = '';
let line3Time = '';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, attempts = 150): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await sleep(100);
  }
  throw new Error(`never happened: ${what}`);
}

const LONG = 'a'.repeat(20_000);

function sandboxConfig(name: string, uid: string): Input<PodSandboxConfig> {
  return {
    metadata: { name, uid, namespace: 'default', attempt: 0 },
    hostname: name,
    logDirectory: join(containerd.logRoot, `default_${name}_${uid}`),
    labels: { 'svc.io/pod.name': name, 'svc.io/pod.namespace': 'default', 'svc.io/pod.uid': uid },
    linux: {},
  };
}

/** A container as the pod workers make it: the contract's labels and `<name>/<attempt>.log`. */
async function runContainer(sandboxId: string, pod: Input<PodSandboxConfig>, name: string, attempt: number, script: string): Promise<string> {
  const { containerId } = await containerd.cri.createContainer({
    podSandboxId: sandboxId,
    sandboxConfig: pod,
    config: {
      metadata: { name, attempt },
      image: { image: BUSYBOX_IMAGE },
      command: ['sh', '-c', script],
      logPath: `${name}/${attempt}.log`,
      labels: { ...pod.labels, 'svc.io/container.name': name },
      annotations: { 'svc.io/container.restartCount': String(attempt) },
    },
  });
  await containerd.cri.startContainer({ containerId });
  return containerId;
}

/**
 * A container that prints whatever lands in /tmp/say (then removes it): tests make it write by
 * exec'ing a script whose output is moved there in one rename.
 */
const RELAY = 'while true; do if [ -f /tmp/say ]; then cat /tmp/say; rm /tmp/say; fi; sleep 0.05; done';
async function say(containerId: string, script: string): Promise<void> {
  await containerd.cri.execSync({ containerId, cmd: ['sh', '-c', `while [ -f /tmp/say ]; do sleep 0.05; done; (${script}) > /tmp/say.new && mv /tmp/say.new /tmp/say`], timeout: 30 });
}

const logsOf = (query: string, server = open) => call(server.port, `/containerLogs/default/talker/main${query}`);

beforeAll(async () => {
  requireKubectl();
  containerd = await startContainerd();
  // The API server, with a client certificate for node agents from a CA the agent trusts.
  const clients = await makeCa('node-agent-clients');
  const apiCert = await makeClientCert(clients, { cn: 'svc-apiserver-node-agent-client', organizations: ['system:masters'] });
  writeFileSync(join(dir, 'clients-ca.pem'), clients.pem);
  writeFileSync(join(dir, 'api-client.crt'), apiCert.cert);
  writeFileSync(join(dir, 'api-client.key'), apiCert.key);
  writeFileSync(join(dir, 'tokens.csv'), 'carol-token,carol,uid-carol\n');
  api = await startApiServer({
    dataDir: join(dir, 'api'),
    storage: 'memory',
    bindAddress: '127.0.0.1',
    securePort: 0,
    tokenAuthFile: join(dir, 'tokens.csv'),
    nodeAgent: { clientCertificateFile: join(dir, 'api-client.crt'), clientKeyFile: join(dir, 'api-client.key'), timeoutMs: 5000 },
  });
  admin = new Client({ server: api.url, token: api.adminToken, caData: api.caPem });

  // The agent as the daemon runs it: no anonymous access, client certificates, SubjectAccessReview.
  agent = await startAgentServer({
    flags: agentFlags(dir, { anonymousAuth: false, clientCaFile: join(dir, 'clients-ca.pem'), authorizationMode: 'Webhook', certDir: join(dir, 'pki') }),
    nodeName: NODE,
    cri: containerd.cri,
    client: admin,
    routes: [echoRoutes(['/exec/:namespace/:pod/:container', '/attach/:namespace/:pod/:container', '/portForward/:namespace/:pod'])],
  });
  // A second, open agent on the same runtime for the direct endpoint tests.
  open = await startAgentServer({ flags: agentFlags(dir, { certDir: join(dir, 'pki-open') }), nodeName: NODE, cri: containerd.cri });

  await admin.create(builtin.nodes, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: NODE },
    status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: agent.port } } },
  } as never);
  const pod = (name: string, containers: string[]) =>
    admin.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: NODE, containers: containers.map((c) => ({ name: c, image: BUSYBOX_IMAGE })) } } as never);
  talkerUid = (await pod('talker', ['main', 'other'])).metadata.uid!;
  rotorUid = (await pod('rotor', ['rotor'])).metadata.uid!;

  const talker = sandboxConfig('talker', talkerUid);
  const talkerSandbox = (await containerd.cri.runPodSandbox({ config: talker })).podSandboxId;
  sandboxes.push(talkerSandbox);
  const first = await runContainer(talkerSandbox, talker, 'main', 0, 'echo first-run; exit 1');
  await eventually('the first run to exit', async () => ((await containerd.cri.containerStatus({ containerId: first })).status?.state === 'CONTAINER_EXITED' ? true : undefined));
  // stdout and stderr reach the runtime through two pipes: lines written within microseconds of
  // each other may land in either order, so the script pauses between streams.
  mainId = await runContainer(talkerSandbox, talker, 'main', 1, `echo line-1; echo line-2; sleep 0.3; echo err-1 >&2; sleep 1; echo line-3; printf '%s\\n' ${LONG}; sleep 3600`);
  const mainLog = join(talker.logDirectory!, 'main/1.log');
  await eventually('main to print its lines', () => (existsSync(mainLog) && readFileSync(mainLog, 'utf8').includes(' F a') ? true : undefined));
  line3Time = readFileSync(mainLog, 'utf8').split('\n').find((l) => l.endsWith(' line-3'))!.split(' ')[0]!;

  const rotor = sandboxConfig('rotor', rotorUid);
  const rotorSandbox = (await containerd.cri.runPodSandbox({ config: rotor })).podSandboxId;
  sandboxes.push(rotorSandbox);
  rotorId = await runContainer(rotorSandbox, rotor, 'rotor', 0, RELAY);
}, 180_000);

afterAll(async () => {
  await agent?.close();
  await open?.close();
  for (const id of sandboxes) {
    await containerd.cri.stopPodSandbox({ podSandboxId: id }).catch(() => {});
    await containerd.cri.removePodSandbox({ podSandboxId: id }).catch(() => {});
  }
  await containerd?.stop();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('containerLogs on the agent', () => {
  it('serves the whole log, stdout and stderr in order, a line split by the runtime joined again', async () => {
    const res = await logsOf('');
    expect(res.status).toBe(200);
    expect(res.text).toBe(`line-1\nline-2\nerr-1\nline-3\n${LONG}\n`);
  });

  it('tailLines keeps the last lines', async () => {
    expect((await logsOf('?tailLines=2')).text).toBe(`line-3\n${LONG}\n`);
    expect((await logsOf('?tailLines=0')).text).toBe('');
  });

  it('timestamps prefixes each line with its RFC 3339 time', async () => {
    const lines = (await logsOf('?timestamps=true&tailLines=2')).text.split('\n');
    expect(lines[0]).toBe(`${line3Time} line-3`);
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z a{20000}$/);
  });

  it('sinceTime and sinceSeconds leave out older lines', async () => {
    expect((await logsOf(`?sinceTime=${encodeURIComponent(line3Time)}`)).text).toBe(`line-3\n${LONG}\n`);
    expect((await logsOf('?sinceSeconds=3600')).text).toContain('line-1\n');
    await sleep(2100);
    expect((await logsOf('?sinceSeconds=1')).text).toBe('');
  });

  it('limitBytes cuts the answer at that many bytes', async () => {
    expect((await logsOf('?limitBytes=10')).text).toBe('line-1\nlin');
  });

  it('previous reads the container of the attempt before', async () => {
    expect((await logsOf('?previous=true')).text).toBe('first-run\n');
    expect((await call(open.port, '/containerLogs/default/rotor/rotor?previous=true')).json).toMatchObject({ code: 400, message: expect.stringContaining('previous terminated container') });
  });

  it('a container or pod the node does not have is a 404 Status; a bad query a 400', async () => {
    expect((await call(open.port, '/containerLogs/default/talker/nope')).json).toMatchObject({ kind: 'Status', code: 404 });
    expect((await call(open.port, '/containerLogs/default/ghost/main')).json).toMatchObject({ kind: 'Status', code: 404 });
    expect((await logsOf('?tailLines=-3')).json).toMatchObject({ kind: 'Status', code: 400 });
  });
});

describe('/stats/summary and /metrics from the runtime', () => {
  it('reports the node (statfs of the root dir) and each pod with its containers from ListContainerStats', async () => {
    const res = await call(open.port, '/stats/summary');
    expect(res.status).toBe(200);
    expect(res.json.node).toMatchObject({ nodeName: NODE, memory: { availableBytes: expect.any(Number) }, fs: { capacityBytes: expect.any(Number) } });
    expect(res.json.node.fs.capacityBytes).toBeGreaterThan(0);
    const talker = res.json.pods.find((p: { podRef: { uid: string } }) => p.podRef.uid === talkerUid);
    expect(talker.podRef).toEqual({ name: 'talker', namespace: 'default', uid: talkerUid });
    const main = talker.containers.find((c: { name: string; memory: { workingSetBytes?: number } }) => c.name === 'main' && c.memory.workingSetBytes);
    expect(main.memory.workingSetBytes).toBeGreaterThan(0);
  });

  it('/metrics counts the containers the runtime runs', async () => {
    const text = (await call(open.port, '/metrics')).text;
    const running = Number(/^nodeagent_running_containers\{container_state="running"\} (\d+)$/m.exec(text)?.[1]);
    expect(running).toBeGreaterThanOrEqual(2);
  });
});

describe('log rotation', () => {
  it('renames the log past max size, reopens it through the runtime, keeps max-files and gzips all but the newest rotated file; tail reads across them', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const rotator = new LogRotator({ cri: containerd.cri, maxSizeBytes: 1000, maxFiles: 3, now: () => now });
    const logPath = (await containerd.cri.containerStatus({ containerId: rotorId })).status!.logPath;
    for (let round = 0; round < 4; round++) {
      await say(rotorId, `i=1; while [ $i -le 20 ]; do echo round-${round}-line-$i-padding-padding-padding-padding-padding; i=$((i+1)); done`);
      await eventually(`round ${round} written`, () => (readFileSync(logPath, 'utf8').includes(`round-${round}-line-20-`) ? true : undefined));
      await rotator.rotateOnce();
      now += 1000;
      // The runtime writes to a fresh file at the same path.
      await say(rotorId, `echo after-rotation-${round}`);
      await eventually('the reopened log', () => (existsSync(logPath) && readFileSync(logPath, 'utf8').includes(`after-rotation-${round}`) ? true : undefined));
    }
    const rotated = await rotatedFiles(logPath);
    expect(rotated.map((f) => f.slice(logPath.length))).toEqual(['.20300101-000002.gz', '.20300101-000003']);
    // The current file plus rotated ones: rounds 2 and 3 survive (0 and 1 were pruned).
    const all = (await call(open.port, '/containerLogs/default/rotor/rotor')).text.split('\n').filter(Boolean);
    expect(all[0]).toMatch(/^after-rotation-1$/);
    expect(all.at(-1)).toBe('after-rotation-3');
    expect(all).toHaveLength(1 + 20 + 1 + 20 + 1);
    const tail = (await call(open.port, '/containerLogs/default/rotor/rotor?tailLines=23')).text.split('\n').filter(Boolean);
    // 23 lines reach back through all three files: the last line of the gzipped one first.
    expect(tail[0]).toMatch(/^round-2-line-20-/);
    expect(tail[1]).toBe('after-rotation-2');
    expect(tail[2]).toMatch(/^round-3-line-1-/);
    expect(tail.at(-1)).toBe('after-rotation-3');
    // Below the size nothing moves.
    await rotator.rotateOnce();
    expect(await rotatedFiles(logPath)).toEqual(rotated);
  });
});

describe('through the API server', () => {
  it('kubectl logs reads a pod log through the proxy (container, tail, timestamps, previous)', async () => {
    const cfg = api.svcconfigPath;
    const all = await kubectl(cfg, ['logs', 'talker', '-c', 'main']);
    expect(all.stderr).toBe('');
    expect(all.stdout).toBe(`line-1\nline-2\nerr-1\nline-3\n${LONG}\n`);
    expect((await kubectl(cfg, ['logs', 'talker', '-c', 'main', '--tail=2', '--timestamps'])).stdout.split('\n')[0]).toBe(`${line3Time} line-3`);
    expect((await kubectl(cfg, ['logs', 'talker', '-c', 'main', '--previous'])).stdout).toBe('first-run\n');
    expect((await kubectl(cfg, ['logs', 'talker', '-c', 'main', '--limit-bytes=4'])).stdout).toBe('line');
  });

  it('a pod log needs a container name when the pod has several, and a valid one', async () => {
    const res = await call(api.port, '/api/v1/namespaces/default/pods/talker/log', { token: api.adminToken, ca: api.caPem });
    expect(res.json).toMatchObject({ code: 400, message: 'a container name must be specified for pod talker, choose one of: [main other]' });
    const bad = await call(api.port, '/api/v1/namespaces/default/pods/talker/log?container=zzz', { token: api.adminToken, ca: api.caPem });
    expect(bad.json).toMatchObject({ code: 400, message: 'container zzz is not valid for pod talker' });
    const both = await call(api.port, '/api/v1/namespaces/default/pods/talker/log?container=main&sinceSeconds=1&sinceTime=2020-01-01T00:00:00Z', { token: api.adminToken, ca: api.caPem });
    expect(both.json).toMatchObject({ code: 400 });
  });

  it('kubectl logs -f streams new lines, across a rotation, and ends when the container exits', async () => {
    const child = spawn(requireKubectl(), ['--kubeconfig', api.svcconfigPath, 'logs', '-f', 'rotor', '--tail=1']);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
    await eventually('the tail line', () => (out.includes('after-rotation-3') ? true : undefined));
    await say(rotorId, 'echo followed-1');
    await eventually('followed-1', () => (out.includes('followed-1\n') ? true : undefined));
    const rotator = new LogRotator({ cri: containerd.cri, maxSizeBytes: 1, maxFiles: 2, now: () => Date.parse('2031-01-01T00:00:00Z') });
    await rotator.rotateContainer(rotorId);
    await say(rotorId, 'echo followed-after-rotation');
    await eventually('a line written after the rotation', () => (out.includes('followed-after-rotation\n') ? true : undefined));
    await containerd.cri.stopContainer({ containerId: rotorId, timeout: 0 });
    expect(await exited).toBe(0);
    expect(out).toBe('after-rotation-3\nfollowed-1\nfollowed-after-rotation\n');
    } finally {
      child.kill();
    }
  });

  it('nodes/proxy reaches any path of the agent', async () => {
    const res = await call(api.port, `/api/v1/nodes/${NODE}/proxy/containerLogs/default/talker/main?tailLines=1`, { token: api.adminToken, ca: api.caPem });
    expect(res.status).toBe(200);
    expect(res.text).toBe(`${LONG}\n`);
    const pods = await kubectl(api.svcconfigPath, ['get', '--raw', `/api/v1/nodes/${NODE}/proxy/healthz`]);
    expect(pods.stdout).toBe('ok');
  });

  it('an exec upgrade is piped to the agent: WebSocket subprotocol and query (with the kubelet aliases) arrive, frames flow both ways', async () => {
    const url = `wss://127.0.0.1:${api.port}/api/v1/namespaces/default/pods/talker/exec?container=main&command=sh&command=-c&command=date&stdin=true&stdout=true&tty=false`;
    const ws = new WebSocket(url, ['v5.channel.k8s.io', 'v4.channel.k8s.io'], { ca: api.caPem, headers: { authorization: `Bearer ${api.adminToken}` } });
    const messages = await exchange(ws, 'hello');
    const first = JSON.parse(messages[0]!);
    expect(first.protocol).toBe('v5.channel.k8s.io');
    const query = new URL(first.url, 'http://x').searchParams;
    expect(first.url.startsWith('/exec/default/talker/main?')).toBe(true);
    expect(query.getAll('command')).toEqual(['sh', '-c', 'date']);
    expect(query.get('input')).toBe('1');
    expect(query.get('output')).toBe('1');
    expect(query.get('stdin')).toBe('true');
    expect(messages[1]).toBe('hello');
  });

  it('a portforward upgrade goes to /portForward/{namespace}/{pod}', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${api.port}/api/v1/namespaces/default/pods/talker/portforward?ports=8080`, ['portforward.k8s.io'], {
      ca: api.caPem,
      headers: { authorization: `Bearer ${api.adminToken}` },
    });
    const first = JSON.parse((await exchange(ws, 'x'))[0]!);
    expect(first).toEqual({ url: '/portForward/default/talker?ports=8080', protocol: 'portforward.k8s.io' });
  });

  it('exec without an upgrade is a 400', async () => {
    const res = await call(api.port, '/api/v1/namespaces/default/pods/talker/exec?container=main&command=ls', { method: 'POST', token: api.adminToken, ca: api.caPem });
    expect(res.json).toMatchObject({ code: 400, message: 'Upgrade request required' });
  });
});

describe('RBAC in front of the proxy', () => {
  beforeAll(async () => {
    // carol may get pods/exec and pods/log... no: only `get` on pods/exec, which is not enough.
    await admin.create(builtin.roles, { apiVersion: 'rbac.authorization.svc.io/v1', kind: 'Role', metadata: { name: 'exec-get', namespace: 'default' }, rules: [{ apiGroups: [''], resources: ['pods/exec'], verbs: ['get'] }] } as never);
    await admin.create(builtin.roleBindings, {
      apiVersion: 'rbac.authorization.svc.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'carol-exec-get', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'Role', name: 'exec-get' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.svc.io', name: 'carol' }],
    } as never);
  });

  it('a WebSocket exec (a GET) is authorized as create on pods/exec: get alone is a 403 Status', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${api.port}/api/v1/namespaces/default/pods/talker/exec?container=main&command=ls&stdout=true`, ['v5.channel.k8s.io'], {
      ca: api.caPem,
      headers: { authorization: 'Bearer carol-token' },
    });
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      ws.on('open', () => reject(new Error('the upgrade was accepted')));
      ws.on('error', () => {});
    });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ kind: 'Status', code: 403, reason: 'Forbidden', details: { kind: 'pods', name: 'talker' } });
    expect(JSON.parse(refused.body).message).toContain('cannot create resource "pods/exec"');
  });

  it('pods/log without permission is a 403 Status', async () => {
    const res = await call(api.port, '/api/v1/namespaces/default/pods/talker/log?container=main', { token: 'carol-token', ca: api.caPem });
    expect(res.json).toMatchObject({ kind: 'Status', code: 403, reason: 'Forbidden' });
    const viaKubectl = await kubectl(api.svcconfigPath, ['--token', 'carol-token', 'logs', 'talker', '-c', 'main']);
    expect(viaKubectl.code).not.toBe(0);
    expect(viaKubectl.stderr).toContain('forbidden');
  });

  it('the agent refuses the same request without the API server client certificate (no anonymous access)', async () => {
    expect((await call(agent.port, '/containerLogs/default/talker/main')).json).toMatchObject({ code: 401 });
  });
});

/** Sends `text` once the first message arrived; resolves with the first two messages. */
function exchange(ws: WebSocket, text: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const messages: string[] = [];
    ws.on('message', (data) => {
      messages.push(String(data));
      if (messages.length === 1) ws.send(text);
      else {
        ws.close();
        resolve(messages);
      }
    });
    ws.on('error', reject);
    ws.on('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
}

