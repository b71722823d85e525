// The static CPU manager's policy on described hosts: CPUs by topology, reserved CPUs, the
// shared pool, full-pcpus-only, hints, and the checkpoint that outlives the agent.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CheckpointError,
  CpuManager,
  describeMachine,
  formatCpuManagerCheckpoint,
  maskOf,
  NotEnoughCpusError,
  parseCpuPolicyOptions,
  parseCpuSet,
  formatCpuSet,
  readCpuManagerCheckpoint,
  takeByTopology,
  type CpuPolicyOptions,
} from '../../../src/nodeagent/index.js';
import { podOf } from './support.js';

const dir = mkdtempSync('/tmp/svc-cpu-manager-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const stateFile = () => join(dir, `state-${files++}`);

// Two sockets of 4 cores, 2 threads each: CPUs 0-7 on socket 0 (cores 0-3: 0,1 / 2,3 / ...), 8-15 on socket 1.
const dualSocket = describeMachine({ sockets: 2, coresPerSocket: 4, threadsPerCore: 2 });
const anyHint = { affinity: undefined, preferred: true };

function manager(options: Partial<CpuPolicyOptions> = {}, file = stateFile(), reserved: { cpus: number[] } | { count: number } = { cpus: [0, 1] }): CpuManager {
  return new CpuManager({ machine: dualSocket, policy: 'static', reserved, options: { ...parseCpuPolicyOptions({}), ...options }, stateFile: file });
}

describe('CPU lists', () => {
  it('reads and writes the kernel list format', () => {
    expect(parseCpuSet('0-3,8, 10-11')).toEqual([0, 1, 2, 3, 8, 10, 11]);
    expect(formatCpuSet([11, 0, 1, 2, 8, 10])).toBe('0-2,8,10-11');
    expect(() => parseCpuSet('3-1')).toThrow(/not a CPU or a range/);
  });
});

describe('taking CPUs by topology', () => {
  const all = dualSocket.cpus.map((c) => c.id);
  it('takes a whole socket for a socket-sized request, whole cores before single threads', () => {
    expect(takeByTopology(dualSocket, all, 8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(takeByTopology(dualSocket, all, 4)).toEqual([0, 1, 2, 3]);
  });

  it('packs a single thread next to a used one: the sibling of a half-used core first', () => {
    // CPU 0 is taken: its sibling 1 is the lone thread of a core, so it goes first.
    expect(takeByTopology(dualSocket, all.filter((c) => c !== 0), 1)).toEqual([1]);
    // Spread: a thread of a whole free core instead.
    expect(takeByTopology(dualSocket, all.filter((c) => c !== 0), 1, { spreadAcrossCores: true })).toEqual([2]);
  });

  it('prefers the socket with fewer free CPUs for whole cores (packing)', () => {
    const available = all.filter((c) => c !== 0 && c !== 1 && c !== 2 && c !== 3);
    expect(takeByTopology(dualSocket, available, 2)).toEqual([4, 5]);
  });

  it('fails with upstream\'s message when too few CPUs are free', () => {
    expect(() => takeByTopology(dualSocket, [3, 4], 3)).toThrow(NotEnoughCpusError);
    expect(() => takeByTopology(dualSocket, [3, 4], 3)).toThrow('not enough cpus available to satisfy request: requested=3, available=2');
  });
});

describe('the static policy', () => {
  it('gives a Guaranteed container with a whole CPU request CPUs of its own, outside the reserved ones, and shrinks the shared pool', () => {
    const m = manager();
    const pod = podOf('p1', [{ name: 'a', cpu: '2' }, { name: 'b', cpu: '500m' }]);
    m.allocate(pod, pod.spec.containers[0]!, anyHint);
    m.allocate(pod, pod.spec.containers[1]!, anyHint);
    expect(m.assignment('p1', 'a')).toEqual([2, 3]);
    // A fractional request stays on the shared pool, which keeps the reserved CPUs.
    expect(m.assignment('p1', 'b')).toBeUndefined();
    expect(m.cpusetOf('p1', 'b')).toEqual([0, 1, ...Array.from({ length: 12 }, (_, i) => i + 4)]);
    expect(m.sharedPool()).not.toContain(2);
    m.removePod('p1');
    expect(m.sharedPool()).toEqual(dualSocket.cpus.map((c) => c.id));
  });

  it('leaves Burstable and BestEffort pods on the shared pool', () => {
    const m = manager();
    const burstable = podOf('p2', [{ name: 'a', cpu: '2' }], { guaranteed: false });
    expect(m.hints(burstable, burstable.spec.containers[0]!)).toBeUndefined();
    m.allocate(burstable, burstable.spec.containers[0]!, anyHint);
    expect(m.assignment('p2', 'a')).toBeUndefined();
  });

  it('lets app containers take an init container\'s CPUs again, but never a sidecar\'s', () => {
    const m = manager();
    const pod = podOf('p9', [{ name: 'app', cpu: '2' }], { init: [{ name: 'setup', cpu: '2' }] });
    m.allocate(pod, pod.spec.initContainers![0]!, anyHint);
    m.allocate(pod, pod.spec.containers[0]!, anyHint);
    expect(m.assignment('p9', 'app')).toEqual(m.assignment('p9', 'setup'));
    const withSidecar = podOf('p10', [{ name: 'app', cpu: '2' }], { init: [{ name: 'proxy', cpu: '2' }] });
    withSidecar.spec.initContainers![0]!.restartPolicy = 'Always';
    m.allocate(withSidecar, withSidecar.spec.initContainers![0]!, anyHint);
    m.allocate(withSidecar, withSidecar.spec.containers[0]!, anyHint);
    expect(m.assignment('p10', 'app')!.some((cpu) => m.assignment('p10', 'proxy')!.includes(cpu))).toBe(false);
    // Pod scope counts a sidecar beside the app containers: 4 + 4 CPUs fit only node 1 (node 0 keeps 2 reserved).
    const big = podOf('p11', [{ name: 'app', cpu: '4' }], { init: [{ name: 'proxy', cpu: '4' }] });
    big.spec.initContainers![0]!.restartPolicy = 'Always';
    expect(manager().podHints(big)).toEqual({ cpu: [{ affinity: maskOf([1]), preferred: true }, { affinity: maskOf([0, 1]), preferred: false }] });
  });

  it('takes CPUs on the NUMA node the topology manager chose', () => {
    const m = manager();
    const pod = podOf('p3', [{ name: 'a', cpu: '2' }]);
    m.allocate(pod, pod.spec.containers[0]!, { affinity: maskOf([1]), preferred: true });
    expect(m.assignment('p3', 'a')).toEqual([8, 9]);
  });

  it('hints: every NUMA node set with enough free CPUs, the narrowest preferred', () => {
    const m = manager();
    const small = podOf('p4', [{ name: 'a', cpu: '4' }]);
    expect(m.hints(small, small.spec.containers[0]!)).toEqual({
      cpu: [
        { affinity: maskOf([0]), preferred: true },
        { affinity: maskOf([1]), preferred: true },
        { affinity: maskOf([0, 1]), preferred: false },
      ],
    });
    // 10 CPUs fit no single node: only both, preferred since no narrower set could hold them.
    const big = podOf('p5', [{ name: 'a', cpu: '10' }]);
    expect(m.hints(big, big.spec.containers[0]!)).toEqual({ cpu: [{ affinity: maskOf([0, 1]), preferred: true }] });
  });

  it('full-pcpus-only refuses odd requests on a 2-thread machine (SMTAlignmentError) and gives whole cores', () => {
    const m = manager({ fullPcpusOnly: true });
    const odd = podOf('p6', [{ name: 'a', cpu: '3' }]);
    expect(() => m.allocate(odd, odd.spec.containers[0]!, anyHint)).toThrow('SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2');
    const even = podOf('p7', [{ name: 'a', cpu: '2' }]);
    m.allocate(even, even.spec.containers[0]!, anyHint);
    const [first, second] = m.assignment('p7', 'a')!;
    expect(dualSocket.cpus[first!]!.core).toBe(dualSocket.cpus[second!]!.core);
  });

  it('strict-cpu-reservation keeps the reserved CPUs out of the shared pool', () => {
    expect(manager({ strictCpuReservation: true }).sharedPool()).not.toContain(0);
    expect(manager().sharedPool()).toContain(0);
  });

  it('reserves the CPUs --svc-reserved + --system-reserved round up to, by topology, and refuses none', () => {
    expect(manager({}, stateFile(), { count: 2 }).reservedCpus).toEqual([0, 1]);
    expect(() => manager({}, stateFile(), { count: 0 })).toThrow(/requires systemreserved.cpu \+ svcreserved.cpu .* greater than zero/);
  });

  it('knows only the options it implements; alpha ones need their gate', () => {
    expect(parseCpuPolicyOptions({ 'full-pcpus-only': 'true' }).fullPcpusOnly).toBe(true);
    expect(() => parseCpuPolicyOptions({ 'no-such-option': 'true' })).toThrow(/unsupported CPU manager policy option "no-such-option"/);
    expect(() => parseCpuPolicyOptions({ 'strict-cpu-reservation': 'true' })).toThrow(/CPUManagerPolicyAlphaOptions/);
    expect(parseCpuPolicyOptions({ 'strict-cpu-reservation': 'true' }, { CPUManagerPolicyAlphaOptions: true }).strictCpuReservation).toBe(true);
  });
});

describe('cpu_manager_state', () => {
  it('writes the checksums the kubelet writes (its own test fixtures and a real node\'s file)', () => {
    expect(formatCpuManagerCheckpoint({ policyName: 'none', defaultCpuSet: [], assignments: new Map() })).toBe('{"policyName":"none","defaultCpuSet":"","checksum":1353318690}');
    expect(JSON.parse(formatCpuManagerCheckpoint({ policyName: 'none', defaultCpuSet: [4, 5, 6], assignments: new Map() })).checksum).toBe(354655845);
    const assignments = new Map([['pod', new Map([['container1', [4, 5, 6]], ['container2', [1, 2, 3]]])]]);
    expect(formatCpuManagerCheckpoint({ policyName: 'none', defaultCpuSet: [1, 2, 3], assignments })).toBe(
      '{"policyName":"none","defaultCpuSet":"1-3","entries":{"pod":{"container1":"4-6","container2":"1-3"}},"checksum":3610638499}',
    );
    // And reads such a file back, checksum verified.
    const file = stateFile();
    writeFileSync(file, '{"policyName":"none","defaultCPUSet":"1-3","entries":{"pod":{"container1":"4-6","container2":"1-3"}},"checksum":3610638499}'.replace('defaultCPUSet', 'defaultCpuSet'));
    expect(readCpuManagerCheckpoint(file)?.assignments.get('pod')?.get('container1')).toEqual([4, 5, 6]);
  });

  it('survives a restart: a new manager on the same file has the same assignments and shared pool', () => {
    const file = stateFile();
    const first = manager({}, file);
    const pod = podOf('uid-1', [{ name: 'main', cpu: '2' }]);
    first.allocate(pod, pod.spec.containers[0]!, anyHint);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(saved)).toEqual(['policyName', 'defaultCpuSet', 'entries', 'checksum']);
    expect(saved).toMatchObject({ policyName: 'static', defaultCpuSet: '0-1,4-15', entries: { 'uid-1': { main: '2-3' } } });
    const second = manager({}, file);
    expect(second.assignment('uid-1', 'main')).toEqual([2, 3]);
    expect(second.sharedPool()).toEqual(first.sharedPool());
  });

  it('leaves entries out when empty, as upstream does, and sums the content (a changed file is corrupt)', () => {
    const text = formatCpuManagerCheckpoint({ policyName: 'static', defaultCpuSet: [0, 1, 2, 3], assignments: new Map() });
    expect(JSON.parse(text)).toEqual({ policyName: 'static', defaultCpuSet: '0-3', checksum: expect.any(Number) });
    const file = stateFile();
    writeFileSync(file, text.replace('"0-3"', '"0-2"'));
    expect(() => readCpuManagerCheckpoint(file)).toThrow(CheckpointError);
    // A checksum of 0 is accepted (upstream's files from before checksums).
    writeFileSync(file, JSON.stringify({ policyName: 'static', defaultCpuSet: '0-2', checksum: 0 }));
    expect(readCpuManagerCheckpoint(file)?.defaultCpuSet).toEqual([0, 1, 2]);
  });

  it('refuses to start on a checkpoint of another policy, or one that does not fit the machine', () => {
    const file = stateFile();
    new CpuManager({ machine: dualSocket, policy: 'none', reserved: { count: 0 }, stateFile: file });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ policyName: 'none', defaultCpuSet: '' });
    expect(() => manager({}, file)).toThrow('configured policy "static" differs from state checkpoint policy "none"');
    const other = stateFile();
    writeFileSync(other, formatCpuManagerCheckpoint({ policyName: 'static', defaultCpuSet: [0, 1, 2], assignments: new Map([['u', new Map([['c', [3]]])]]) }));
    expect(() => manager({}, other)).toThrow(/current set of available CPUs "0-15" doesn't match with CPUs in state "0-3"/);
  });
});
