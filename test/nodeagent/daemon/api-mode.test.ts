// The real `nodeagent` process against a real svc-apiserver (HTTPS, the admin svcconfig) and a
// private containerd: registration, the URL source and its mirror pod, `kubectl logs` through
// the API server's proxy, and `kill -9` of the agent while pods run. The agent is the installed
// bin, dist/nodeagent.mjs as `npm run build` bundles it (the unbundled modules run under `svc up`
// and the in-process tests), so that what the bundle leaves out is tested against real peers.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { AddressInfo } from 'node:net';
import { release } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleNodeAgent } from '../../../scripts/bundle-nodeagent.js';
import { CONFIG_MIRROR_ANNOTATION, type Pod } from '../../../src/api/index.js';
import { ensureClientCertificate } from '../../../src/pki/index.js';
import { startApiServer, type RunningApiServer } from '../../support/api-server.js';
import { builtin, Client } from '../../../src/client/index.js';
import { mountsUnder, NODE_LEASE_NAMESPACE, POD_NAME_LABEL, readSystemIdentity } from '../../../src/nodeagent/index.js';
import { eventually, isGone } from '../../controllers/support.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { kubectl, requireKubectl } from '../../support/kubectl.js';
import { agentDirs, containersOf, freePort, sleeper, spawnAgent, uniqueNodeName, unmountUnder, writeAgentConfig, type AgentProcess } from './support.js';

// Short: containerd's socket lives under it and unix socket paths are capped at 107 bytes.
const dir = mkdtempSync('/tmp/svc-na-daemon-');
// Inside the repository, as dist/ is: the bundle finds package.json and node_modules from there.
const bundleDir = join(import.meta.dirname, '../../../node_modules/.cache', `svc-bundle-api-mode-${process.pid}`);
const bin = join(bundleDir, 'nodeagent.mjs');
const dataDir = join(dir, 'api');
const nodeName = uniqueNodeName('daemon');
const URL_HEADER = { name: 'X-Manifest-Token', value: 'open-sesame' };
const registriesFile = join(dir, 'registries.yaml');
const hostsDir = join(dir, 'certs.d');

let containerd: RunningContainerd;
let server: RunningApiServer;
let client: Client;
let manifestServer: Server;
const manifestRequests: IncomingHttpHeaders[] = [];
let port: number;
let proxyCert: { certFile: string; keyFile: string };
let agentArgs: string[];
let rootDir: string;
let agent: AgentProcess | undefined;

/** The static pod the URL serves; only a request with the configured header gets it. */
const urlPod: Pod = { ...sleeper('from-url'), metadata: { name: 'from-url', namespace: 'default' } };

async function serveManifest(): Promise<string> {
  manifestServer = createServer((req, res) => {
    manifestRequests.push(req.headers);
    if (req.headers[URL_HEADER.name.toLowerCase()] !== URL_HEADER.value) {
      res.writeHead(403).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(urlPod));
  });
  await new Promise<void>((resolve) => manifestServer.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(manifestServer.address() as AddressInfo).port}/pods`;
}

beforeAll(async () => {
  requireKubectl();
  await bundleNodeAgent(bin);
  containerd = await startContainerd();
  // The certificate the API server shows the agent when it proxies logs: the cluster CA's, in system:masters.
  proxyCert = await ensureClientCertificate(join(dataDir, 'pki'), 'node-agent-client', { commonName: 'svc-apiserver-node-agent-client', organizations: ['system:masters'] });
  server = await startApiServer({
    dataDir,
    storage: 'sqlite',
    bindAddress: '127.0.0.1',
    securePort: 0,
    nodeAgent: { clientCertificateFile: proxyCert.certFile, clientKeyFile: proxyCert.keyFile },
  });
  client = await Client.fromSvcconfig(server.svcconfigPath);
  const manifestUrl = await serveManifest();
  port = await freePort();
  const dirs = agentDirs(join(dir, 'node'));
  rootDir = dirs.rootDir;
  // An operator's hosts directory with a registry of its own, which the agent must leave alone.
  mkdirSync(join(hostsDir, 'corp.example.com'), { recursive: true });
  writeFileSync(join(hostsDir, 'corp.example.com', 'hosts.toml'), 'server = "https://corp.example.com"\n');
  writeFileSync(registriesFile, 'mirrors:\n  docker.io:\n    endpoint: ["127.0.0.1:5000"]\n');
  writeAgentConfig(dirs.config, {
    endpoint: containerd.endpoint,
    port,
    clientCaFile: join(dataDir, 'pki', 'ca.crt'),
    extra: { registryConfig: registriesFile, registryHostsDir: hostsDir },
  });
  agentArgs = [
    '--config', dirs.config,
    '--svcconfig', server.svcconfigPath,
    '--root-dir', dirs.rootDir,
    '--cert-dir', dirs.certDir,
    '--hostname-override', nodeName,
    '--manifest-url', manifestUrl,
    '--manifest-url-header', `${URL_HEADER.name}:${URL_HEADER.value}`,
  ];
  agent = spawnAgent(agentArgs, bin);
  await agent.running();
}, 180_000);

afterAll(async () => {
  // SIGTERM leaves the containers running by design; containerd.stop() removes the sandboxes.
  await agent?.stop();
  // SIGTERM is a clean stop.
  if (agent) expect(await agent.exited).toBe(0);
  await client?.close();
  await new Promise((resolve) => (manifestServer ? manifestServer.close(resolve) : resolve(undefined)));
  await server?.close();
  await containerd?.stop();
  unmountUnder(dir);
  // Nothing of the node outlives the suite: no shim, mount, network namespace, containerd or bridge.
  if (containerd) expect(containerd.leftovers()).toMatchObject({ shims: [], mounts: [], netns: [], containerdRunning: false, bridgePresent: false });
  expect(mountsUnder(dir)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
  rmSync(bundleDir, { recursive: true, force: true });
}, 120_000);

const k = (args: readonly string[]) => kubectl(server.svcconfigPath, args);
const getPod = (name: string) => client.get(builtin.pods, name, { namespace: 'default' });

async function isRunning(name: string): Promise<boolean> {
  try {
    const pod = await getPod(name);
    return pod.status?.phase === 'Running' && (pod.status.containerStatuses ?? []).every((c) => (c['state'] as { running?: unknown } | undefined)?.running !== undefined);
  } catch {
    return false;
  }
}

/** GET on the agent's own port, as the API server's proxy would (its client certificate), or anonymously. */
function agentGet(path: string, asProxy: boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const credentials = asProxy ? { cert: readFileSync(proxyCert.certFile), key: readFileSync(proxyCert.keyFile) } : {};
    // The agent's serving certificate is self-signed into --cert-dir: what is checked here is the agent's auth, not TLS.
    httpsGet({ host: '127.0.0.1', port, path, rejectUnauthorized: false, ...credentials }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/** The pods the running agent's workers hold, with the status they computed (the agent's `/pods`). */
async function agentPods(): Promise<Pod[]> {
  const { status, body } = await agentGet('/pods', true);
  if (status !== 200) throw new Error(`the agent's /pods answered ${status}: ${body}`);
  return (JSON.parse(body) as { items: Pod[] }).items;
}

const runningContainers = async (uid: string) => (await containersOf(containerd.cri, uid)).filter((c) => c.state === 'CONTAINER_RUNNING');

function failureContext(): string {
  return agent ? agent.stderr().slice(-3000) : '';
}

/** `eventually`, failing with the agent's last output and the pod's status (what a CI log needs). */
async function waitFor(check: () => Promise<boolean>, what: string, pod?: string): Promise<void> {
  try {
    await eventually(check, what, 60_000);
  } catch (error) {
    const status = pod ? JSON.stringify((await getPod(pod).catch(() => undefined))?.status) : '';
    const sandboxes = (await containerd.cri.listPodSandbox({})).items.map((s) => `${s.metadata?.name}:${s.state}`);
    const containers = (await containerd.cri.listContainers({})).containers.map((c) => `${c.metadata?.name}:${c.state}`);
    throw new Error(`${(error as Error).message}\npod status: ${status}\nsandboxes: ${sandboxes.join(' ')}\ncontainers: ${containers.join(' ')}\nagent:\n${failureContext()}`);
  }
}

describe('nodeagent against a real API server', () => {
  it('registers its Node with the agent\'s port in daemonEndpoints, and the Node becomes Ready', async () => {
    await eventually(async () => {
      try {
        const node = await client.get(builtin.nodes, nodeName);
        return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
      } catch {
        return false;
      }
    }, 'the Node to be Ready', 60_000);
    const node = await client.get(builtin.nodes, nodeName);
    expect(node.status?.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: port } });
    // kubectl sees the same Node as Ready.
    const ready = await k(['get', 'node', nodeName, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']);
    expect(ready.stdout, ready.stderr).toBe('True');
    // The heartbeat Lease is this node's.
    const lease = await client.get(builtin.leases, nodeName, { namespace: NODE_LEASE_NAMESPACE });
    expect(lease.spec?.holderIdentity).toBe(nodeName);
  }, 90_000);

  it('fills every nodeInfo field of its Node, systemUUID, machineID and bootID among them, from this machine and the runtime', async () => {
    // Read as the wire has it (kubectl's JSON): generated clients refuse a nodeInfo without these.
    const got = await k(['get', 'node', nodeName, '-o', 'json']);
    expect(got.code, got.stderr).toBe(0);
    const info = (JSON.parse(got.stdout) as { status: { nodeInfo: Record<string, string> } }).status.nodeInfo;
    const host = readSystemIdentity();
    const version = await containerd.cri.version({});
    const agentVersion = info['kubeletVersion'];
    expect(info).toEqual({
      systemUUID: host.systemUUID,
      machineID: readFileSync('/etc/machine-id', 'utf8').trim(),
      bootID: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      kernelVersion: release(),
      osImage: /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1],
      containerRuntimeVersion: `containerd://${version.runtimeVersion}`,
      kubeletVersion: agentVersion,
      kubeProxyVersion: agentVersion,
      operatingSystem: 'linux',
      architecture: 'amd64',
    });
    expect(agentVersion).toMatch(/^v\d+\.\d+\.\d+/);
    expect(version.runtimeVersion).toMatch(/^\d+\.\d+\.\d+/);
    // A UUID: the firmware's where DMI is readable, else this machine id written as one.
    expect(info['systemUUID']).toMatch(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/);
  }, 30_000);

  it('writes its --registry-config as hosts.toml into --registry-hosts-dir for the runtime, leaving the directory\'s other registries alone', () => {
    expect(readFileSync(join(hostsDir, 'docker.io', 'hosts.toml'), 'utf8')).toBe(
      'server = "https://registry-1.docker.io"\n\n[host."http://127.0.0.1:5000"]\n  capabilities = ["pull", "resolve"]\n',
    );
    expect(readFileSync(join(hostsDir, 'corp.example.com', 'hosts.toml'), 'utf8')).toBe('server = "https://corp.example.com"\n');
  });

  it('refuses a request to its port without the API server\'s client certificate (anonymous is off), and takes one with it', async () => {
    expect((await agentGet('/pods', false)).status).toBe(401);
    // The certificate the API server proxies with gets through (system:masters, asked by Webhook).
    expect((await agentGet('/pods', true)).status).toBe(200);
  });

  it('runs the static pod of --manifest-url (fetched with --manifest-url-header) and mirrors it into the API server', async () => {
    const mirrorName = `from-url-${nodeName}`;
    await waitFor(() => isRunning(mirrorName), 'the mirror pod to report Running', mirrorName);
    const mirror = await getPod(mirrorName);
    expect(mirror.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION]).toBeDefined();
    expect(mirror.spec?.nodeName).toBe(nodeName);
    const { containers } = await containerd.cri.listContainers({ filter: { labelSelector: { [POD_NAME_LABEL]: mirrorName } } });
    expect(containers.filter((c) => c.state === 'CONTAINER_RUNNING')).toHaveLength(1);
    expect(manifestRequests.length).toBeGreaterThan(0);
    for (const headers of manifestRequests) expect(headers[URL_HEADER.name.toLowerCase()]).toBe(URL_HEADER.value);
  }, 90_000);

  it('serves kubectl logs through the API server\'s proxy to this daemon', async () => {
    const pod: Pod = sleeper('talker', nodeName);
    pod.spec!.containers[0]!.command = ['sh', '-c', 'echo hello-from-the-daemon; exec sleep 3600'];
    await client.create(builtin.pods, pod, { namespace: 'default' });
    await waitFor(() => isRunning('talker'), 'talker to run', 'talker');
    await eventually(async () => (await k(['logs', 'talker'])).stdout.includes('hello-from-the-daemon'), 'kubectl logs to show the line', 30_000);
    const logs = await k(['logs', 'talker', '-c', 'main']);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toBe('hello-from-the-daemon\n');
  }, 90_000);

  it('adopts the running containers after kill -9 and a restart: none killed, none duplicated', async () => {
    for (const name of ['survivor-a', 'survivor-b']) await client.create(builtin.pods, sleeper(name, nodeName), { namespace: 'default' });
    await waitFor(async () => (await isRunning('survivor-a')) && (await isRunning('survivor-b')), 'both pods to run', 'survivor-a');
    const before = new Map<string, { uid: string; ids: string[] }>();
    for (const name of ['survivor-a', 'survivor-b']) {
      const uid = (await getPod(name)).metadata.uid!;
      const ids = (await runningContainers(uid)).map((c) => c.id);
      expect(ids).toHaveLength(1);
      before.set(name, { uid, ids });
    }

    agent!.child.kill('SIGKILL');
    expect(await agent!.exited).toBeNull();
    agent = spawnAgent(agentArgs, bin);
    await agent.running();

    // The restarted agent's workers hold both pods again, Running, with the status they computed
    // from what they found in the runtime: that is the adoption.
    const adopted = (pods: Pod[], name: string) =>
      pods.some((p) => p.metadata.name === name && p.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.['containerID'] === `containerd://${before.get(name)!.ids[0]}`);
    await waitFor(async () => {
      const pods = await agentPods().catch(() => []);
      return adopted(pods, 'survivor-a') && adopted(pods, 'survivor-b');
    }, 'the restarted agent to hold both pods with their old containers', 'survivor-a');
    // The restart made the root dir shared again without stacking a second bind mount on it.
    expect(mountsUnder(rootDir).filter((point) => point === rootDir)).toHaveLength(1);
    // And it goes on working: a pod created after the restart runs.
    await client.create(builtin.pods, sleeper('after-restart', nodeName), { namespace: 'default' });
    await waitFor(() => isRunning('after-restart'), 'a pod created after the restart to run', 'after-restart');

    for (const [name, { uid, ids }] of before) {
      const all = await containersOf(containerd.cri, uid);
      expect(all.map((c) => c.id), failureContext()).toEqual(ids);
      if (all[0]!.state !== 'CONTAINER_RUNNING') {
        const { status } = await containerd.cri.containerStatus({ containerId: all[0]!.id });
        expect.fail(`${name}'s container ${status?.state}: exit ${status?.exitCode} ${status?.reason} ${status?.message}, finished ${status?.finishedAt}\nagent:\n${failureContext()}`);
      }
      const pod = await getPod(name);
      expect(pod.status?.phase).toBe('Running');
      expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(0);
      expect(pod.status?.containerStatuses?.[0]?.containerID).toBe(`containerd://${ids[0]}`);
    }
  }, 180_000);

  it('ends a pod deleted after the restart for good: the object and its containers are gone and stay gone', async () => {
    const uid = (await getPod('survivor-a')).metadata.uid!;
    await client.delete(builtin.pods, 'survivor-a', { namespace: 'default' });
    await waitFor(() => isGone(getPod('survivor-a')), 'the pod object to be removed', 'survivor-a');
    expect(await runningContainers(uid)).toEqual([]);

    // Another pod goes through the agent after the deletion; the deleted one did not come back.
    await client.create(builtin.pods, sleeper('later', nodeName), { namespace: 'default' });
    await waitFor(() => isRunning('later'), 'a later pod to run', 'later');
    expect(await isGone(getPod('survivor-a'))).toBe(true);
    expect(await runningContainers(uid)).toEqual([]);
    // The other survivor was not touched.
    const other = await getPod('survivor-b');
    expect(other.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    expect(await runningContainers(other.metadata.uid!)).toHaveLength(1);
  }, 120_000);
});
