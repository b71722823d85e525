// --qos-reserved on this host's real cgroups (v1 or v2, whichever it runs): a node agent in this
// process with a private containerd and a cgroup root of its own runs a Guaranteed, a Burstable and
// a BestEffort static pod; the pods land in their QoS cgroups and the burstable and besteffort
// limits keep the reserve of the higher classes' memory requests, following the pods as they go.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { prepareNodeAgent } from '../../../src/cli/nodeagent-command.js';
import { startNodeAgent, type RunningNodeAgent } from '../../../src/cli/nodeagent-run.js';
import { hardThresholds, hostCgroups, milliCpuToShares, sharesToWeight, nodeResources, POD_NAME_LABEL, qosCgroupNames, qosMemoryLimits, quantityValueOf, thisHost } from './support.js';
import { eventually } from '../../controllers/support.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { agentDirs, freePort, sleeper, uniqueNodeName, unmountUnder, writeAgentConfig } from '../daemon/support.js';

const dir = `/tmp/svc-qos-${Math.random().toString(36).slice(2, 8)}`;
const cgroupRoot = `/svc-test-${Math.random().toString(36).slice(2, 8)}`;
const node = uniqueNodeName('qos');
const names = qosCgroupNames(cgroupRoot);
const cgroups = hostCgroups();
const MI = 1024 ** 2;
let containerd: RunningContainerd;
let agent: RunningNodeAgent | undefined;
let allocatable = 0;
const log: string[] = [];
const manifests = join(dir, 'manifests');

function pod(name: string, resources?: { requests: Record<string, string>; limits?: Record<string, string> }): Pod {
  const base = sleeper(name);
  return { ...base, spec: { ...base.spec, containers: [{ ...base.spec.containers[0]!, ...(resources ? { resources } : {}) }] } };
}

/** Removes a cgroup tree bottom-up (cgroup directories go with rmdir only). */
function removeCgroup(path: string): void {
  if (!existsSync(path)) return;
  for (const entry of readdirSync(path)) if (statSync(join(path, entry)).isDirectory()) removeCgroup(join(path, entry));
  try {
    rmdirSync(path);
  } catch {
    // still busy: left for the host
  }
}

const sandboxUid = async (podName: string) => (await containerd.cri.listPodSandbox({ filter: { labelSelector: { [POD_NAME_LABEL]: `${podName}-${node}` } } })).items.find((s) => s.state === 'SANDBOX_READY')?.metadata?.uid;

beforeAll(async () => {
  containerd = await startContainerd();
  mkdirSync(manifests, { recursive: true });
  writeFileSync(join(manifests, 'guaranteed.yaml'), stringify(pod('guaranteed', { requests: { memory: '64Mi', cpu: '10m' }, limits: { memory: '64Mi', cpu: '10m' } })));
  writeFileSync(join(manifests, 'burstable.yaml'), stringify(pod('burstable', { requests: { memory: '32Mi', cpu: '100m' } })));
  writeFileSync(join(manifests, 'besteffort.yaml'), stringify(pod('besteffort')));
  const dirs = agentDirs(join(dir, 'node'));
  writeAgentConfig(dirs.config, { endpoint: containerd.endpoint, port: await freePort(), extra: { qosReserved: { memory: '100%' }, featureGates: { QOSReserved: true }, cgroupRoot } });
  const io = { out: (line: string) => log.push(line), err: (line: string) => log.push(line) };
  const startup = prepareNodeAgent(['--config', dirs.config, '--root-dir', dirs.rootDir, '--cert-dir', dirs.certDir, '--hostname-override', node, '--pod-manifest-path', manifests, '-v', '2'], io);
  if (typeof startup === 'number') throw new Error(`the agent's options were refused:\n${log.join('\n')}`);
  const values = startup.options.values;
  allocatable = quantityValueOf(nodeResources({ ...values, eventQps: 50, eventBurst: 100 }, thisHost, hardThresholds(values.evictionHard)).allocatable['memory']);
  agent = await startNodeAgent(startup, io, { qosUpdateIntervalMs: 500 });
}, 180_000);

/** The running containers of a static pod. */
const running = async (podName: string) =>
  (await containerd.cri.listContainers({ filter: { labelSelector: { [POD_NAME_LABEL]: `${podName}-${node}` } } })).containers.filter((c) => c.state === 'CONTAINER_RUNNING');

afterAll(async () => {
  // The pods go first, so no container outlives the suite in the test's cgroups.
  for (const file of readdirSync(manifests)) unlinkSync(join(manifests, file));
  await eventually(async () => (await containerd.cri.listContainers({})).containers.every((c) => c.state !== 'CONTAINER_RUNNING'), 'the pods to stop', 60_000).catch(() => undefined);
  await agent?.close();
  await containerd?.stop();
  unmountUnder(dir);
  rmSync(dir, { recursive: true, force: true });
  // runc makes the pod's cgroups in every controller (v1) or in the one tree (v2).
  const mounts = cgroups.version === 2 ? ['/sys/fs/cgroup'] : readdirSync('/sys/fs/cgroup').map((c) => join('/sys/fs/cgroup', c));
  for (const mount of mounts) removeCgroup(join(mount, ...cgroupRoot.split('/').filter(Boolean)));
}, 120_000);

describe('--qos-reserved=memory=100% on real cgroups', () => {
  it('runs each pod in its QoS cgroup: Guaranteed in kubepods, the others in burstable and besteffort', async () => {
    for (const [name, parent] of [
      ['guaranteed', names.kubepods],
      ['burstable', names.burstable],
      ['besteffort', names.besteffort],
    ] as const) {
      await eventually(async () => (await running(name)).length === 1, `${name}'s container to run:\n${log.slice(-10).join('\n')}`, 60_000);
      const podDir = cgroups.memoryDir(`${parent}/pod${(await sandboxUid(name))!}`);
      await eventually(() => existsSync(podDir) && readdirSync(podDir).some((e) => statSync(join(podDir, e)).isDirectory()), `${podDir} with the containers' cgroups`, 60_000);
      // The processes of the pod's containers are in cgroups under it.
      const procs = readdirSync(podDir)
        .filter((e) => statSync(join(podDir, e)).isDirectory())
        .flatMap((e) => readFileSync(join(podDir, e, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean));
      expect(procs.length).toBeGreaterThan(0);
    }
  }, 120_000);

  it('limits burstable to allocatable minus the Guaranteed requests, besteffort further by the Burstable requests', async () => {
    expect(allocatable).toBeGreaterThan(96 * MI);
    await eventually(() => cgroups.memoryLimit(names.besteffort) === allocatable - 96 * MI, `besteffort limit ${cgroups.memoryLimit(names.besteffort)} to be ${allocatable - 96 * MI}`, 30_000);
    expect(cgroups.memoryLimit(names.burstable)).toBe(allocatable - 64 * MI);
    expect(log.some((line) => line.includes('qos-cgroups] QoS memory limits:'))).toBe(true);
  }, 60_000);

  it('weighs burstable by its pods\' CPU requests and besteffort at the minimum, as the kubelet', () => {
    const weight = (shares: number) => (cgroups.version === 2 ? sharesToWeight(shares) : shares);
    expect(cgroups.cpuWeight(names.burstable)).toBe(weight(102));
    expect(cgroups.cpuWeight(names.besteffort)).toBe(weight(2));
  });

  it('gives the reserve back when a pod goes', async () => {
    unlinkSync(join(manifests, 'guaranteed.yaml'));
    await eventually(() => cgroups.memoryLimit(names.burstable) === allocatable, `burstable limit ${cgroups.memoryLimit(names.burstable)} to be ${allocatable}`, 60_000);
    expect(cgroups.memoryLimit(names.besteffort)).toBe(allocatable - 32 * MI);
  }, 90_000);
});

describe('the reserve', () => {
  const p = (qos: 'g' | 'b' | 'be', memory: string) => {
    const resources: { requests: Record<string, string>; limits?: Record<string, string> } | undefined = qos === 'g' ? { requests: { memory, cpu: '1' }, limits: { memory, cpu: '1' } } : qos === 'b' ? { requests: { memory } } : undefined;
    return pod(`${qos}-${memory}`, resources);
  };
  it('is the percentage of the higher classes\' requests, rounded down', () => {
    expect(qosMemoryLimits([p('g', '100Mi'), p('b', '50Mi'), p('be', '0')], 1000 * MI, 50)).toEqual({ burstable: 950 * MI, besteffort: 925 * MI });
    expect(qosMemoryLimits([p('g', '3'), p('b', '3')], 1000, 50)).toEqual({ burstable: 999, besteffort: 998 });
    expect(qosMemoryLimits([], 1000, 100)).toEqual({ burstable: 1000, besteffort: 1000 });
  });

  it('gives CPU shares as the kubelet: 1024 a CPU, at least 2, at most 262144', () => {
    expect([0, 1, 100, 1000, 2500, 1_000_000].map(milliCpuToShares)).toEqual([2, 2, 102, 1024, 2560, 262144]);
    expect([2, 1024, 262144].map(sharesToWeight)).toEqual([1, 39, 10000]);
  });

  it('refuses --qos-reserved without the gate, without --cgroups-per-qos, or above 100%', () => {
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    const host = { swapDevices: 0, cgroupVersion: 2 as const };
    const base = ['--fail-swap-on=false', '--fail-cgroupv1=false'];
    expect(prepareNodeAgent([...base, '--qos-reserved', 'memory=50%'], io, host)).toBe(1);
    expect(prepareNodeAgent([...base, '--qos-reserved', 'memory=50%', '--feature-gates', 'QOSReserved=true', '--cgroups-per-qos=false'], io, host)).toBe(1);
    expect(prepareNodeAgent([...base, '--qos-reserved', 'memory=150%', '--feature-gates', 'QOSReserved=true'], io, host)).toBe(1);
    expect(lines.join('\n')).toContain('needs the QOSReserved feature gate');
    expect(lines.join('\n')).toContain('needs --cgroups-per-qos');
    expect(lines.join('\n')).toContain('must be a percentage between 0% and 100%');
    lines.length = 0;
    expect(typeof prepareNodeAgent([...base, '--qos-reserved', 'memory=50%', '--feature-gates', 'QOSReserved=true'], io, host)).toBe('object');
    expect(lines.filter((l) => l.includes('not built'))).toEqual([]);
  });
});
