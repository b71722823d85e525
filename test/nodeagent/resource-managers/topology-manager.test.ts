// Pod admission by the topology manager over the CPU and memory managers, on a described host of
// two NUMA nodes (4 CPUs and 4 GiB each): scopes, policies and TopologyAffinityError.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { describeMachine, formatCpuSet, parseReservedMemory, registerResourceManagerMetrics, parseTopologyPolicyOptions, ResourceManagers, type TopologyPolicyName, type TopologyScope } from '../../../src/nodeagent/index.js';
import { podOf } from './support.js';

const dir = mkdtempSync('/tmp/svc-topology-manager-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let dirs = 0;
const Gi = 1024 ** 3;
const machine = describeMachine({ sockets: 2, coresPerSocket: 4, threadsPerCore: 1, memoryPerNodeBytes: 4 * Gi });

function managers(policy: TopologyPolicyName, scope: TopologyScope = 'container'): ResourceManagers {
  return new ResourceManagers({
    machine,
    stateDir: join(dir, String(dirs++)),
    cpu: { policy: 'static', reserved: { cpus: [0] } },
    memory: { policy: 'Static', reserved: parseReservedMemory(['0:memory=512Mi', '1:memory=512Mi']) },
    topology: { policy, scope },
  });
}

const rejected = { admit: false, reason: 'TopologyAffinityError', message: 'Resources cannot be allocated with Topology locality' };

describe('topology manager admission', () => {
  it('single-numa-node puts CPUs and memory of a container on one node, and its cpuset says so', () => {
    const m = managers('single-numa-node');
    const pod = podOf('p1', [{ name: 'a', cpu: '2', memory: '1Gi' }]);
    expect(m.admit(pod)).toMatchObject({ admit: true });
    const cpus = m.cpu.assignment('p1', 'a')!;
    const nodes = new Set(cpus.map((cpu) => machine.cpus[cpu]!.numaNode));
    expect(nodes.size).toBe(1);
    expect(m.containerCpuset(pod, pod.spec.containers[0]!)).toEqual({ cpusetCpus: formatCpuSet(cpus), cpusetMems: String([...nodes][0]) });
  });

  it('single-numa-node refuses a container whose CPUs fit no single node (TopologyAffinityError); the pod keeps nothing', () => {
    const m = managers('single-numa-node');
    const pod = podOf('p2', [{ name: 'a', cpu: '5', memory: '1Gi' }]);
    expect(m.admit(pod)).toMatchObject(rejected);
    expect(m.cpu.assignment('p2', 'a')).toBeUndefined();
    expect(m.memory.memsOf('p2', 'a')).toBeUndefined();
    // best-effort admits it across both nodes.
    expect(managers('best-effort').admit(pod)).toMatchObject({ admit: true });
  });

  it('restricted refuses when the CPU and memory managers can only use different nodes', () => {
    const m = managers('restricted');
    // Node 1's CPUs (4-7) all go to one pod; node 0's memory to another (it asks no whole CPU).
    expect(m.admit(podOf('cpus', [{ name: 'a', cpu: '4', memory: '100Mi' }]))).toMatchObject({ admit: true });
    expect(m.cpu.assignment('cpus', 'a')).toEqual([4, 5, 6, 7]);
    expect(m.admit(podOf('memory', [{ name: 'a', cpu: '500m', memory: '3584Mi' }]))).toMatchObject({ admit: true });
    expect(m.memory.memsOf('memory', 'a')).toEqual([0]);
    // CPUs only on node 0 now, memory only on node 1: no preferred placement.
    const pod = podOf('p3', [{ name: 'a', cpu: '2', memory: '1Gi' }]);
    expect(m.admit(pod)).toMatchObject(rejected);
    // best-effort admits it anyway, split.
    const split = managers('best-effort');
    split.admit(podOf('cpus', [{ name: 'a', cpu: '4', memory: '100Mi' }]));
    split.admit(podOf('memory', [{ name: 'a', cpu: '500m', memory: '3584Mi' }]));
    expect(split.admit(pod)).toMatchObject({ admit: true });
  });

  it('scope pod aligns all containers of a pod together; scope container may split them', () => {
    const pod = podOf('p4', [
      { name: 'a', cpu: '3', memory: '1Gi' },
      { name: 'b', cpu: '3', memory: '1Gi' },
    ]);
    // Six CPUs fit no single node: refused for the pod as a whole.
    expect(managers('single-numa-node', 'pod').admit(pod)).toMatchObject(rejected);
    // Per container each fits a node of its own.
    const m = managers('single-numa-node', 'container');
    expect(m.admit(pod)).toMatchObject({ admit: true });
    expect(m.topology.affinity('p4', 'a')?.affinity).not.toBe(m.topology.affinity('p4', 'b')?.affinity);
  });

  it('with topology policy none, a static CPU manager out of CPUs refuses with UnexpectedAdmissionError, as upstream', () => {
    const m = managers('none');
    expect(m.admit(podOf('big', [{ name: 'a', cpu: '7', memory: '1Gi' }]))).toEqual({ admit: true, sharedPoolChanged: true });
    expect(m.admit(podOf('more', [{ name: 'a', cpu: '1', memory: '1Gi' }]))).toMatchObject({
      admit: false,
      reason: 'UnexpectedAdmissionError',
      message: 'Allocate failed due to not enough cpus available to satisfy request: requested=1, available=0, which is unexpected',
    });
    // A pod that takes no CPU of its own leaves the shared pool alone.
    expect(m.admit(podOf('shared', [{ name: 'a', cpu: '500m', memory: '1Gi' }], { guaranteed: false }))).toEqual({ admit: true, sharedPoolChanged: false });
    // Released: the CPUs are there again.
    m.removePod('big');
    expect(m.admit(podOf('more', [{ name: 'a', cpu: '1', memory: '1Gi' }]))).toMatchObject({ admit: true });
  });

  it('knows its policy options and refuses hosts with more NUMA nodes than allowed', () => {
    expect(parseTopologyPolicyOptions({ 'prefer-closest-numa-nodes': 'true' })).toEqual({ preferClosestNuma: true, maxAllowableNumaNodes: 8 });
    expect(() => parseTopologyPolicyOptions({ 'max-allowable-numa-nodes': '4' })).toThrow(/at least 8/);
    expect(() => parseTopologyPolicyOptions({ bogus: 'true' })).toThrow(/unsupported topology manager policy option "bogus"/);
    const wide = describeMachine({ sockets: 10, coresPerSocket: 1, threadsPerCore: 1 });
    const make = (options?: { preferClosestNuma: boolean; maxAllowableNumaNodes: number }) =>
      new ResourceManagers({ machine: wide, stateDir: join(dir, String(dirs++)), cpu: { policy: 'none', reserved: { count: 0 } }, memory: { policy: 'None', reserved: new Map() }, topology: { policy: 'best-effort', scope: 'container', options } });
    expect(() => make()).toThrow(/more than 8 NUMA nodes/);
    expect(() => make({ preferClosestNuma: false, maxAllowableNumaNodes: 10 })).not.toThrow();
  });

  it('counts admissions, refusals and pinnings, and reports the shared pool on /metrics', async () => {
    const m = managers('single-numa-node');
    const registry = new Registry();
    registerResourceManagerMetrics(m, registry);
    m.admit(podOf('ok', [{ name: 'a', cpu: '2', memory: '1Gi' }]));
    m.admit(podOf('too-wide', [{ name: 'a', cpu: '5', memory: '1Gi' }]));
    const text = await registry.metrics();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('nodeagent_topology_manager_admission_requests_total')).toBe(2);
    expect(value('nodeagent_topology_manager_admission_errors_total')).toBe(1);
    expect(value('nodeagent_cpu_manager_pinning_requests_total')).toBe(1);
    expect(value('nodeagent_memory_manager_pinning_requests_total')).toBe(1);
    expect(value('nodeagent_cpu_manager_exclusive_cpu_allocation_count')).toBe(2);
    expect(value('nodeagent_cpu_manager_shared_pool_size_millicores')).toBe(6000);
  });
});
