// The node agent killed with SIGKILL while its pods run, then started again: it adopts every
// sandbox and container it finds (the same IDs, nothing created twice, as CRI's ListPodSandbox
// and ListContainers show), the pods keep their IPs in their status, a crash-looping container
// goes on with its restart count, and no log line is lost: what containers wrote while no agent
// ran is in their log files and served by `kubectl logs` through the API server.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/index.js';
import { ensureClientCertificate } from '../../src/pki/index.js';
import { startApiServer, type RunningApiServer } from '../support/api-server.js';
import { builtin, Client } from '../../src/client/index.js';
import { mountsUnder, POD_UID_LABEL } from '../../src/nodeagent/index.js';
import { eventually } from '../controllers/support.js';
import { agentDirs, containersOf, freePort, sleeper, spawnAgent, uniqueNodeName, unmountUnder, writeAgentConfig, type AgentProcess } from '../nodeagent/daemon/support.js';
import { startContainerd, type RunningContainerd } from '../support/containerd.js';
import { kubectl, requireKubectl } from '../support/kubectl.js';

const dir = mkdtempSync('/tmp/svc-fault-agent-');
const dataDir = join(dir, 'api');
const nodeName = uniqueNodeName('faults');
/** Lines each logger writes (bounded), one every 20 ms; then it sleeps. */
const LOG_LINES = 4000;
const LOGGERS = ['logger-a', 'logger-b'];
const STEADY = [...LOGGERS, 'steady'];
const CRASHER = 'crasher';

let containerd: RunningContainerd;
let server: RunningApiServer;
let client: Client;
let agentArgs: string[];
let agent: AgentProcess | undefined;

beforeAll(async () => {
  requireKubectl();
  containerd = await startContainerd();
  const proxyCert = await ensureClientCertificate(join(dataDir, 'pki'), 'node-agent-client', { commonName: 'svc-apiserver-node-agent-client', organizations: ['system:masters'] });
  server = await startApiServer({ dataDir, storage: 'sqlite', bindAddress: '127.0.0.1', securePort: 0, nodeAgent: { clientCertificateFile: proxyCert.certFile, clientKeyFile: proxyCert.keyFile } });
  client = await Client.fromSvcconfig(server.svcconfigPath);
  const dirs = agentDirs(join(dir, 'node'));
  writeAgentConfig(dirs.config, { endpoint: containerd.endpoint, port: await freePort(), clientCaFile: join(dataDir, 'pki', 'ca.crt') });
  agentArgs = ['--config', dirs.config, '--svcconfig', server.svcconfigPath, '--root-dir', dirs.rootDir, '--cert-dir', dirs.certDir, '--hostname-override', nodeName];
  agent = spawnAgent(agentArgs);
  await agent.running();
}, 180_000);

afterAll(async () => {
  await agent?.stop();
  await client?.close();
  await server?.close();
  await containerd?.stop();
  unmountUnder(dir);
  if (containerd) expect(containerd.leftovers()).toMatchObject({ shims: [], mounts: [], netns: [], containerdRunning: false, bridgePresent: false });
  expect(mountsUnder(dir)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

const getPod = (name: string) => client.get(builtin.pods, name, { namespace: 'default' });

function logger(name: string): Pod {
  const pod = sleeper(name, nodeName);
  pod.spec!.containers[0]!.command = ['sh', '-c', `i=0; while [ $i -lt ${LOG_LINES} ]; do i=$((i+1)); echo ${name}-$i; sleep 0.02; done; exec sleep 3600`];
  return pod;
}

function crasher(): Pod {
  const pod = sleeper(CRASHER, nodeName);
  pod.spec!.containers[0]!.command = ['sh', '-c', 'echo started; sleep 1; exit 3'];
  return pod;
}

const state = (pod: Pod) => pod.status?.containerStatuses?.[0]?.['state'] as { running?: unknown } | undefined;
const restarts = (pod: Pod): number => Number(pod.status?.containerStatuses?.[0]?.restartCount ?? 0);

async function sandboxesOf(uid: string) {
  return (await containerd.cri.listPodSandbox({ filter: { labelSelector: { [POD_UID_LABEL]: uid } } })).items;
}

/** The numbers a logger's lines carry, in the order they are in `text`. */
const lineNumbers = (name: string, text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(`${name}-`))
    .map((line) => Number(line.slice(name.length + 1)));

/** The text of a CRI log file: each line is `<time> <stream> <P|F> <text>`. */
const criLogText = (file: string) =>
  file
    .split('\n')
    .map((line) => line.split(' ').slice(3).join(' '))
    .join('\n');

/** 1, 2, …, n with nothing missing and nothing twice. */
function expectConsecutive(numbers: readonly number[], what: string): void {
  const broken = numbers.findIndex((n, i) => n !== i + 1);
  expect(broken, `${what}: line ${broken} is ${numbers[broken]} (after ${numbers[broken - 1]})`).toBe(-1);
}

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  try {
    await eventually(async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return check();
    }, what, 90_000);
  } catch (error) {
    const sandboxes = (await containerd.cri.listPodSandbox({})).items.map((s) => `${s.metadata?.name}:${s.state}`);
    const containers = (await containerd.cri.listContainers({})).containers.map((c) => `${c.metadata?.name}#${c.metadata?.attempt}:${c.state}`);
    throw new Error(`${(error as Error).message}\nsandboxes: ${sandboxes.join(' ')}\ncontainers: ${containers.join(' ')}\nagent:\n${agent?.stderr().slice(-3000)}`);
  }
}

describe('the node agent killed with SIGKILL while pods run', () => {
  it('adopts every sandbox and container, keeps pod IPs and restart counts, and loses no log line', async () => {
    for (const pod of [...LOGGERS.map(logger), sleeper('steady', nodeName), crasher()]) await client.create(builtin.pods, pod, { namespace: 'default' });
    await waitFor(async () => {
      const pods = await Promise.all(STEADY.map(getPod));
      const crash = await getPod(CRASHER);
      return pods.every((p) => p.status?.phase === 'Running' && state(p)?.running !== undefined && p.status.podIP) && restarts(crash) >= 1;
    }, 'the pods to run and the crasher to have restarted');

    // What the runtime and the API hold before the kill.
    const before = new Map<string, { uid: string; ip: string; sandboxes: string[]; containers: string[]; restarts: number }>();
    for (const name of [...STEADY, CRASHER]) {
      const pod = await getPod(name);
      const uid = pod.metadata.uid!;
      const sandboxes = (await sandboxesOf(uid)).map((s) => s.id);
      expect(sandboxes, name).toHaveLength(1);
      const containers = (await containersOf(containerd.cri, uid)).map((c) => c.id).sort();
      before.set(name, { uid, ip: pod.status!.podIP!, sandboxes, containers, restarts: restarts(pod) });
    }
    const loggedBefore = new Map<string, number>();
    for (const name of LOGGERS) {
      const logs = await kubectl(server.svcconfigPath, ['logs', name]);
      expect(logs.code, logs.stderr).toBe(0);
      const numbers = lineNumbers(name, logs.stdout);
      expectConsecutive(numbers, `${name} before the kill`);
      loggedBefore.set(name, numbers.length);
    }

    agent!.child.kill('SIGKILL');
    expect(await agent!.exited).toBeNull();
    // With no agent: the loggers go on writing, the crasher's container exits and stays exited.
    const crasherUid = before.get(CRASHER)!.uid;
    await waitFor(async () => (await containersOf(containerd.cri, crasherUid)).every((c) => c.state === 'CONTAINER_EXITED'), 'the crasher to exit while no agent runs');
    const loggerLogPaths = new Map<string, string>();
    for (const name of LOGGERS) {
      const [container] = await containersOf(containerd.cri, before.get(name)!.uid);
      loggerLogPaths.set(name, (await containerd.cri.containerStatus({ containerId: container!.id, verbose: false })).status!.logPath);
    }
    const writtenWhileAway = async () => {
      for (const [name, path] of loggerLogPaths) if (lineNumbers(name, criLogText(readFileSync(path, 'utf8'))).length <= loggedBefore.get(name)! + 20) return false;
      return true;
    };
    await waitFor(writtenWhileAway, 'the loggers to write lines while no agent runs');

    agent = spawnAgent(agentArgs);
    await agent.running();

    // The new agent has computed and written status: the crasher restarted under it.
    await waitFor(async () => restarts(await getPod(CRASHER)) > before.get(CRASHER)!.restarts, 'the crasher to be restarted by the new agent');

    for (const name of STEADY) {
      const { uid, ip, sandboxes, containers } = before.get(name)!;
      // The same sandbox and the same container: adopted, nothing created, nothing killed.
      expect((await sandboxesOf(uid)).map((s) => s.id), name).toEqual(sandboxes);
      expect((await containersOf(containerd.cri, uid)).map((c) => c.id).sort(), name).toEqual(containers);
      await waitFor(async () => {
        const pod = await getPod(name);
        return pod.status?.phase === 'Running' && pod.status.containerStatuses?.[0]?.containerID === `containerd://${containers[0]}`;
      }, `${name}'s status from the new agent`);
      const pod = await getPod(name);
      expect(pod.status?.podIP, name).toBe(ip);
      expect(pod.status?.podIPs, name).toEqual([{ ip }]);
      expect(restarts(pod), name).toBe(0);
    }

    // The crasher: its one sandbox kept (same IP), its restart count went on, one container per attempt.
    const crash = before.get(CRASHER)!;
    expect((await sandboxesOf(crash.uid)).map((s) => s.id)).toEqual(crash.sandboxes);
    const attempts = (await containersOf(containerd.cri, crash.uid)).map((c) => c.metadata!.attempt);
    expect(new Set(attempts).size, `attempts ${attempts.join(',')}`).toBe(attempts.length);
    expect((await containersOf(containerd.cri, crash.uid)).filter((c) => c.state === 'CONTAINER_RUNNING').length).toBeLessThanOrEqual(1);
    expect((await getPod(CRASHER)).status?.podIP).toBe(crash.ip);

    // No log line lost: the file holds every line, and kubectl logs (through the new agent) serves them.
    for (const name of LOGGERS) {
      const inFile = lineNumbers(name, criLogText(readFileSync(loggerLogPaths.get(name)!, 'utf8')));
      expectConsecutive(inFile, `${name}'s log file`);
      const logs = await kubectl(server.svcconfigPath, ['logs', name]);
      expect(logs.code, logs.stderr).toBe(0);
      const served = lineNumbers(name, logs.stdout);
      expectConsecutive(served, `${name} from kubectl logs`);
      expect(served.length).toBeGreaterThan(loggedBefore.get(name)! + 20);
      expect(served.length).toBeGreaterThanOrEqual(inFile.length);
    }

    // Nothing was left over: every sandbox in the runtime belongs to one of these pods, once.
    const uids = (await containerd.cri.listPodSandbox({})).items.map((s) => s.labels[POD_UID_LABEL]);
    expect(uids.sort()).toEqual([...before.values()].map((b) => b.uid).sort());
  }, 300_000);
});
