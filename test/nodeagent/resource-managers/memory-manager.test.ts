// The Static memory manager on described multi-node hosts: hints, allocation across nodes,
// release, --reserved-memory and memory_manager_state.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeMachine, formatMemoryManagerCheckpoint, maskOf, MemoryManager, parseReservedMemory } from '../../../src/nodeagent/index.js';
import { podOf } from './support.js';

const dir = mkdtempSync('/tmp/svc-memory-manager-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const stateFile = () => join(dir, `state-${files++}`);
const Gi = 1024 ** 3;
// Two NUMA nodes of 4 GiB each (one per socket), 1 GiB of each reserved for the system.
const machine = describeMachine({ sockets: 2, coresPerSocket: 2, threadsPerCore: 1, memoryPerNodeBytes: 4 * Gi });
const reserved = parseReservedMemory(['0:memory=1Gi', '1:memory=1Gi']);
const manager = (file = stateFile()) => new MemoryManager({ machine, policy: 'Static', reserved, allocatableReservedMemory: 2 * Gi, stateFile: file });

describe('the Static memory manager', () => {
  it('hints every node set with enough free memory, the narrowest preferred', () => {
    const m = manager();
    const pod = podOf('p1', [{ name: 'a', memory: '2Gi' }]);
    expect(m.hints(pod, pod.spec.containers[0]!)).toEqual({
      memory: [
        { affinity: maskOf([0]), preferred: true },
        { affinity: maskOf([1]), preferred: true },
        { affinity: maskOf([0, 1]), preferred: false },
      ],
    });
    const big = podOf('p2', [{ name: 'a', memory: '5Gi' }]);
    expect(m.hints(big, big.spec.containers[0]!)).toEqual({ memory: [{ affinity: maskOf([0, 1]), preferred: true }] });
    // Not Guaranteed: no preference.
    const burstable = podOf('p3', [{ name: 'a', memory: '1Gi' }], { guaranteed: false });
    expect(m.hints(burstable, burstable.spec.containers[0]!)).toBeUndefined();
  });

  it('charges the chosen nodes, pins the container to them, and gives the memory back on release', () => {
    const m = manager();
    const pod = podOf('p4', [{ name: 'a', memory: '2Gi' }]);
    m.allocate(pod, pod.spec.containers[0]!, { affinity: maskOf([1]), preferred: true });
    expect(m.memsOf('p4', 'a')).toEqual([1]);
    expect(m.table(1, 'memory')).toMatchObject({ total: 4 * Gi, systemReserved: Gi, allocatable: 3 * Gi, reserved: 2 * Gi, free: Gi });
    // Node 1 has 1 GiB left: a 2 GiB request fits only node 0 now.
    const next = podOf('p5', [{ name: 'a', memory: '2Gi' }]);
    expect(m.hints(next, next.spec.containers[0]!)?.['memory']?.filter((h) => h.preferred)).toEqual([{ affinity: maskOf([0]), preferred: true }]);
    m.removePod('p4');
    expect(m.table(1, 'memory')).toMatchObject({ reserved: 0, free: 3 * Gi });
    expect(m.memsOf('p4', 'a')).toBeUndefined();
  });

  it('spreads a request too big for one node over both, and keeps later pods off a half of that group', () => {
    const m = manager();
    const big = podOf('p6', [{ name: 'a', memory: '5Gi' }]);
    m.allocate(big, big.spec.containers[0]!, { affinity: maskOf([0, 1]), preferred: true });
    expect(m.memsOf('p6', 'a')).toEqual([0, 1]);
    const small = podOf('p7', [{ name: 'a', memory: '100Mi' }]);
    // Single nodes are part of the two-node group now: only the group itself is a hint.
    expect(m.hints(small, small.spec.containers[0]!)).toEqual({ memory: [{ affinity: maskOf([0, 1]), preferred: false }] });
  });

  it('hints the same node sets for every type a container asks: memory anywhere, hugepages only where they are', () => {
    const withHugepages = { ...machine, numaNodes: machine.numaNodes.map((n) => (n.id === 1 ? { ...n, hugepages: { 'hugepages-2Mi': 64 * 1024 ** 2 } } : n)) };
    const m = new MemoryManager({ machine: withHugepages, policy: 'Static', reserved, allocatableReservedMemory: 2 * Gi, stateFile: stateFile() });
    const pod = podOf('p9', [{ name: 'a', memory: '1Gi', hugepages2Mi: '32Mi' }]);
    const expected = [{ affinity: maskOf([1]), preferred: true }, { affinity: maskOf([0, 1]), preferred: false }];
    expect(m.hints(pod, pod.spec.containers[0]!)).toEqual({ memory: expected, 'hugepages-2Mi': expected });
    m.allocate(pod, pod.spec.containers[0]!, { affinity: maskOf([1]), preferred: true });
    expect(m.table(1, 'hugepages-2Mi')).toMatchObject({ total: 64 * 1024 ** 2, reserved: 32 * 1024 ** 2, free: 32 * 1024 ** 2 });
  });

  it('refuses an allocation the hint\'s nodes cannot hold', () => {
    const m = manager();
    const pod = podOf('p8', [{ name: 'a', memory: '4Gi' }]);
    expect(() => m.allocate(pod, pod.spec.containers[0]!, { affinity: maskOf([0]), preferred: false })).toThrow(/\[memorymanager\] failed to find NUMA nodes/);
  });

  it('needs --reserved-memory summing to what node allocatable holds back', () => {
    expect(() => new MemoryManager({ machine, policy: 'Static', reserved: new Map(), stateFile: stateFile() })).toThrow(/needs --reserved-memory/);
    expect(() => new MemoryManager({ machine, policy: 'Static', reserved, allocatableReservedMemory: Gi, stateFile: stateFile() })).toThrow(/is not equal to the value determined by node allocatable/);
    expect(() => parseReservedMemory(['0:cpu=1'])).toThrow(/not memory or a hugepages size/);
    expect(() => new MemoryManager({ machine, policy: 'Static', reserved: parseReservedMemory(['7:memory=2Gi']), stateFile: stateFile() })).toThrow(/NUMA node 7 does not exist/);
  });
});

describe('memory_manager_state', () => {
  it('writes the None policy\'s file as the kubelet does (checksum included)', () => {
    expect(formatMemoryManagerCheckpoint({ policyName: 'None', machineState: new Map(), assignments: new Map() })).toBe('{"policyName":"None","machineState":{},"checksum":4236770233}');
  });

  it('keeps the machine state and assignments across a restart', () => {
    const file = stateFile();
    const first = manager(file);
    const pod = podOf('uid-1', [{ name: 'main', memory: '1Gi' }]);
    first.allocate(pod, pod.spec.containers[0]!, { affinity: maskOf([0]), preferred: true });
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(saved).toMatchObject({
      policyName: 'Static',
      machineState: { '0': { numberOfAssignments: 1, memoryMap: { memory: { total: 4 * Gi, systemReserved: Gi, allocatable: 3 * Gi, reserved: Gi, free: 2 * Gi } }, cells: [0] } },
      entries: { 'uid-1': { main: [{ numaAffinity: [0], type: 'memory', size: Gi }] } },
    });
    const second = manager(file);
    expect(second.memsOf('uid-1', 'main')).toEqual([0]);
    expect(second.table(0, 'memory')?.free).toBe(2 * Gi);
    // Another policy on the same file is refused.
    expect(() => new MemoryManager({ machine, policy: 'None', reserved: new Map(), stateFile: file })).toThrow('configured policy "None" differs from state checkpoint policy "Static"');
  });
});
