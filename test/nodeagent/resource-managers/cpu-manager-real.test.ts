// The static CPU manager and the Static memory manager on this host, with real containers: a
// node agent in this process (policy static, CPU 0 reserved, memory Static with the 100Mi the
// default hard eviction threshold holds back), a private containerd and a real API server.
// On this 2-CPU host a Guaranteed pod with cpu: 1 takes CPU 1 for itself (on a larger host it asks
// for every CPU but the reserved one): its container's cgroup cpuset says so, and the shared pool
// (every other container's cpuset) shrinks to CPU 0 and grows back when the pod goes. A second
// Guaranteed pod is refused with upstream's reason. The assignments survive an agent restart
// through cpu_manager_state.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { builtin, Client } from '../../../src/client/index.js';
import { prepareNodeAgent } from '../../../src/cli/nodeagent-command.js';
import { startNodeAgent, type RunningNodeAgent } from '../../../src/cli/nodeagent-run.js';
import { formatCpuSet, readMachineTopology, type CriClient } from '../../../src/nodeagent/index.js';
import { eventually } from '../../controllers/support.js';
import { startApiServer, type RunningApiServer } from '../../support/api-server.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { agentDirs, containersOf, freePort, sleeper, uniqueNodeName, unmountUnder, writeAgentConfig } from '../daemon/support.js';

const dir = mkdtempSync('/tmp/svc-cpuman-');
const nodeName = uniqueNodeName('cpuman');
let containerd: RunningContainerd;
let server: RunningApiServer;
let client: Client;
let agent: RunningNodeAgent | undefined;
let dirs: ReturnType<typeof agentDirs>;
const log: string[] = [];
const io = { out: (line: string) => log.push(line), err: (line: string) => log.push(line) };
const cpuIds = readMachineTopology().cpus.map((c) => c.id);
const cpuCount = cpuIds.length;
/** The reserved CPU (0 here); the exclusive pod asks for and gets every other one (CPU 1 on this host). */
const reservedCpu = String(cpuIds[0] ?? 0);
const exclusiveCpus = formatCpuSet(cpuIds.slice(1));
const allCpus = formatCpuSet(cpuIds);

function guaranteed(name: string, cpu: string): Pod {
  const base = sleeper(name, nodeName);
  const resources = { requests: { cpu, memory: '64Mi' }, limits: { cpu, memory: '64Mi' } };
  return { ...base, spec: { ...base.spec, containers: [{ ...base.spec.containers[0]!, resources }] } };
}

async function startAgent(topologyPolicy: string): Promise<void> {
  writeAgentConfig(dirs.config, {
    endpoint: containerd.endpoint,
    port: await freePort(),
    extra: {
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: reservedCpu,
      cpuManagerReconcilePeriod: '1s',
      memoryManagerPolicy: 'Static',
      reservedMemory: [{ numaNode: 0, limits: { memory: '100Mi' } }],
      topologyManagerPolicy: topologyPolicy,
    },
  });
  const startup = prepareNodeAgent(['--config', dirs.config, '--svcconfig', server.svcconfigPath, '--root-dir', dirs.rootDir, '--cert-dir', dirs.certDir, '--hostname-override', nodeName], io);
  if (typeof startup === 'number') throw new Error(`the agent's options were refused:\n${log.join('\n')}`);
  agent = await startNodeAgent(startup, io);
}

/** The cgroup v1 (or v2) cpuset file of a running container's process, read on the host. */
async function cgroupCpuset(cri: CriClient, containerId: string, file: 'cpuset.cpus' | 'cpuset.mems'): Promise<string> {
  const status = await cri.containerStatus({ containerId, verbose: true });
  const pid = (JSON.parse(status.info['info'] ?? '{}') as { pid?: number }).pid;
  if (!pid) throw new Error(`no pid for container ${containerId}`);
  const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').trim().split('\n');
  const v1 = lines.map((line) => line.split(':')).find(([, controllers]) => controllers!.split(',').includes('cpuset'));
  const path = v1 ? join('/sys/fs/cgroup/cpuset', v1[2]!, file) : join('/sys/fs/cgroup', lines.find((l) => l.startsWith('0::'))!.slice(3), `${file}.effective`);
  return readFileSync(path, 'utf8').trim();
}

/** The cpuset the runtime was told: the OCI spec containerd keeps for the container. */
async function runtimeSpecCpu(cri: CriClient, containerId: string): Promise<{ cpus?: string; mems?: string } | undefined> {
  const status = await cri.containerStatus({ containerId, verbose: true });
  const info = JSON.parse(status.info['info'] ?? '{}') as { runtimeSpec?: { linux?: { resources?: { cpu?: { cpus?: string; mems?: string } } } } };
  return info.runtimeSpec?.linux?.resources?.cpu;
}

async function runningContainer(name: string): Promise<string> {
  const pod = await client.get(builtin.pods, name, { namespace: 'default' });
  const running = (await containersOf(containerd.cri, pod.metadata.uid!)).find((c) => c.state === 'CONTAINER_RUNNING');
  if (!running) throw new Error(`${name} has no running container`);
  return running.id;
}

const phaseOf = async (name: string) => (await client.get(builtin.pods, name, { namespace: 'default' })).status?.phase;
const checkpoint = () => JSON.parse(readFileSync(join(dirs.rootDir, 'cpu_manager_state'), 'utf8')) as { policyName: string; defaultCpuSet: string; entries?: Record<string, Record<string, string>>; checksum: number };

beforeAll(async () => {
  containerd = await startContainerd();
  server = await startApiServer({ dataDir: join(dir, 'api'), storage: 'sqlite', bindAddress: '127.0.0.1', securePort: 0 });
  client = await Client.fromSvcconfig(server.svcconfigPath);
  dirs = agentDirs(join(dir, 'node'));
  await startAgent('none');
}, 180_000);

afterAll(async () => {
  await agent?.close();
  await client?.close();
  await server?.close();
  await containerd?.stop();
  unmountUnder(dir);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('the static CPU manager with real containers', () => {
  it('runs a BestEffort pod on the whole shared pool, then gives a Guaranteed cpu: 1 pod CPU 1 to itself and shrinks the shared pool to CPU 0', async () => {
    expect(cpuCount).toBeGreaterThanOrEqual(2);
    await client.create(builtin.pods, sleeper('shared', nodeName), { namespace: 'default' });
    await eventually(async () => (await phaseOf('shared')) === 'Running', `shared Running:\n${log.slice(-10).join('\n')}`, 90_000);
    expect(await cgroupCpuset(containerd.cri, await runningContainer('shared'), 'cpuset.cpus')).toBe(allCpus);

    await client.create(builtin.pods, guaranteed('exclusive', String(cpuCount - 1)), { namespace: 'default' });
    await eventually(async () => (await phaseOf('exclusive')) === 'Running', `exclusive Running:\n${log.slice(-10).join('\n')}`, 90_000);
    const exclusive = await runningContainer('exclusive');
    expect(await cgroupCpuset(containerd.cri, exclusive, 'cpuset.cpus')).toBe(exclusiveCpus);
    // The memory manager pinned its memory to NUMA node 0 (the only one here): in the cgroup, and
    // asked of the runtime (a one-node host's cgroup would say 0 anyway).
    expect(await cgroupCpuset(containerd.cri, exclusive, 'cpuset.mems')).toBe('0');
    expect(await runtimeSpecCpu(containerd.cri, exclusive)).toMatchObject({ cpus: exclusiveCpus, mems: '0' });
    // The running BestEffort container was moved off CPU 1 by the reconciler (UpdateContainerResources).
    await eventually(async () => (await cgroupCpuset(containerd.cri, await runningContainer('shared'), 'cpuset.cpus')) === reservedCpu, 'the shared container on the reserved CPU only', 30_000);

    const uid = (await client.get(builtin.pods, 'exclusive', { namespace: 'default' })).metadata.uid!;
    expect(checkpoint()).toMatchObject({ policyName: 'static', defaultCpuSet: reservedCpu, entries: { [uid]: { main: exclusiveCpus } } });
    expect(checkpoint().checksum).toBeGreaterThan(0);
  }, 200_000);

  it('refuses a second Guaranteed cpu: 1 pod: Failed with UnexpectedAdmissionError (no CPU left), an event, and no container', async () => {
    await client.create(builtin.pods, guaranteed('refused', '1'), { namespace: 'default' });
    await eventually(async () => (await phaseOf('refused')) === 'Failed', 'refused Failed', 30_000);
    const pod = await client.get(builtin.pods, 'refused', { namespace: 'default' });
    expect(pod.status).toMatchObject({
      phase: 'Failed',
      reason: 'UnexpectedAdmissionError',
      message: 'Pod was rejected: Allocate failed due to not enough cpus available to satisfy request: requested=1, available=0, which is unexpected',
    });
    expect(await containersOf(containerd.cri, pod.metadata.uid!)).toEqual([]);
    await eventually(
      async () => (await client.list(builtin.coreEvents, { namespace: 'default' })).items.some((e) => e.reason === 'UnexpectedAdmissionError' && e.type === 'Warning' && e.involvedObject?.name === 'refused'),
      'an UnexpectedAdmissionError event',
      30_000,
    );
  }, 60_000);

  it('keeps the assignment across an agent restart (cpu_manager_state), and under topology policy restricted refuses with TopologyAffinityError', async () => {
    await agent?.close();
    agent = undefined;
    await startAgent('restricted');
    await eventually(async () => (await phaseOf('exclusive')) === 'Running', 'exclusive still Running', 30_000);
    expect(await cgroupCpuset(containerd.cri, await runningContainer('exclusive'), 'cpuset.cpus')).toBe(exclusiveCpus);
    expect(checkpoint()).toMatchObject({ defaultCpuSet: reservedCpu });

    await client.create(builtin.pods, guaranteed('unaligned', '1'), { namespace: 'default' });
    await eventually(async () => (await phaseOf('unaligned')) === 'Failed', 'unaligned Failed', 30_000);
    expect((await client.get(builtin.pods, 'unaligned', { namespace: 'default' })).status).toMatchObject({
      reason: 'TopologyAffinityError',
      message: 'Pod was rejected: Resources cannot be allocated with Topology locality',
    });
  }, 120_000);

  it('gives CPU 1 back to the shared pool when the exclusive pod goes: the shared container runs on 0-1 again', async () => {
    await client.delete(builtin.pods, 'exclusive', { namespace: 'default' });
    await eventually(async () => checkpoint().defaultCpuSet === allCpus, `the checkpoint's shared pool ${allCpus} (now ${checkpoint().defaultCpuSet})`, 60_000);
    expect(checkpoint().entries).toBeUndefined();
    await eventually(async () => (await cgroupCpuset(containerd.cri, await runningContainer('shared'), 'cpuset.cpus')) === allCpus, `the shared container on ${allCpus}`, 30_000);
  }, 90_000);
});
