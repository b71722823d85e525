// The eviction manager's passes over a described node: pods that use memory or disk, a host whose
// available amount is what the pods leave, and an `evict` that stops a pod (its usage goes back to
// the host). The real agent, containerd and signals are in eviction-real.test.ts.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { evictionThresholds, startEvictionManager, type EvictionFlags, type EvictionManagerHandle, type EvictionPassResult, type PodUsage } from '../../../src/nodeagent/index.js';

const MI = 1024 ** 2;
const CAPACITY = 1024 * MI;

interface DescribedPod {
  readonly pod: Pod;
  readonly usage: PodUsage;
}

function described(name: string, o: { priority?: number; memoryMi?: number; diskMi?: number; grace?: number; static?: boolean }): DescribedPod {
  return {
    pod: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', uid: name, ...(o.static ? { annotations: { static: 'yes' } } : {}) },
      spec: { priority: o.priority ?? 0, terminationGracePeriodSeconds: o.grace ?? 30, containers: [{ name: 'c', image: 'x' }] },
    },
    usage: { memoryBytes: (o.memoryMi ?? 0) * MI, diskBytes: (o.diskMi ?? 0) * MI },
  };
}

/** A node of CAPACITY memory and disk, `baseMi` used by the system, the rest by the pods. */
function node(flags: Partial<EvictionFlags>, pods: DescribedPod[], o: { baseMi: number; reclaimableDiskMi?: number; maxPodGracePeriodSeconds?: number }) {
  const running = [...pods];
  let reclaimable = (o.reclaimableDiskMi ?? 0) * MI;
  const evictions: { name: string; grace: number; message: string }[] = [];
  let clock = 0;
  const used = (key: 'memoryBytes' | 'diskBytes') => o.baseMi * MI + running.reduce((sum, p) => sum + (p.usage[key] ?? 0), 0);
  const manager: EvictionManagerHandle = startEvictionManager({
    thresholds: evictionThresholds({ evictionHard: {}, evictionSoft: {}, evictionSoftGracePeriodMs: {}, evictionMinimumReclaim: {}, ...flags }),
    maxPodGracePeriodSeconds: o.maxPodGracePeriodSeconds ?? 0,
    // Passes are driven by the test (pass()); the timer's first pass runs at once and finds what the test set.
    intervalMs: 3_600_000,
    now: () => clock,
    observe: async () => ({
      signals: new Map([
        ['memory.available', { available: CAPACITY - used('memoryBytes'), capacity: CAPACITY }],
        ['nodefs.available', { available: CAPACITY - used('diskBytes') - reclaimable, capacity: CAPACITY }],
      ]),
      usage: new Map(running.map((p) => [p.pod.metadata.uid!, p.usage])),
    }),
    activePods: () => running.map((p) => p.pod),
    isStaticPod: (pod) => pod.metadata.annotations?.['static'] === 'yes',
    evict: async (pod, grace, message) => {
      running.splice(running.findIndex((p) => p.pod === pod), 1);
      evictions.push({ name: pod.metadata.name!, grace, message });
    },
    reclaimDisk: async () => {
      reclaimable = 0;
    },
  });
  return {
    manager,
    evictions,
    running,
    at: (ms: number) => (clock = ms),
    async passes(n: number): Promise<EvictionPassResult[]> {
      const out: EvictionPassResult[] = [];
      for (let i = 0; i < n; i++) out.push(await manager.pass());
      return out;
    },
  };
}

describe('the eviction manager', () => {
  it('evicts one pod per pass, and only as many as the minimum reclaim needs', async () => {
    // 1024Mi: 700Mi system + 3 × 100Mi pods leaves 24Mi, below 100Mi; the minimum reclaim asks for 150Mi more.
    const n = node(
      { evictionHard: { 'memory.available': '100Mi' }, evictionMinimumReclaim: { 'memory.available': '150Mi' } },
      [described('a', { memoryMi: 100, priority: 10 }), described('b', { memoryMi: 100 }), described('c', { memoryMi: 100, priority: 5 })],
      { baseMi: 700 },
    );
    const results = await n.passes(5);
    // After b: 124Mi free (met). After c: 224Mi (above 100, below 250: still met). After a: 324Mi, resolved.
    expect(results.map((r) => r.type)).toEqual(['evicted', 'evicted', 'evicted', 'none', 'none']);
    expect(n.evictions.map((e) => e.name)).toEqual(['b', 'c', 'a']);
    n.manager.stop();
  });

  it('without a minimum reclaim it stops as soon as the threshold is no longer met', async () => {
    const n = node({ evictionHard: { 'memory.available': '100Mi' } }, [described('a', { memoryMi: 100 }), described('b', { memoryMi: 100 }), described('c', { memoryMi: 100 })], { baseMi: 700 });
    await n.passes(4);
    expect(n.evictions).toHaveLength(1);
    expect(n.evictions[0]!.grace).toBe(1);
    expect(n.evictions[0]!.message).toMatch(/^The node was low on resource: memory\. Threshold quantity: 100Mi, available: 24Mi\. /);
    n.manager.stop();
  });

  it('a soft threshold evicts only after its grace period, with the max pod grace period', async () => {
    const n = node(
      { evictionHard: { 'memory.available': '1Mi' }, evictionSoft: { 'memory.available': '100Mi' }, evictionSoftGracePeriodMs: { 'memory.available': 60_000 } },
      [described('a', { memoryMi: 100, grace: 30 })],
      { baseMi: 900, maxPodGracePeriodSeconds: 10 },
    );
    n.at(0);
    expect((await n.manager.pass()).type).toBe('waiting');
    expect([...n.manager.pressures()]).toEqual(['MemoryPressure']);
    n.at(59_999);
    expect((await n.manager.pass()).type).toBe('waiting');
    n.at(60_000);
    expect(await n.manager.pass()).toMatchObject({ type: 'evicted', gracePeriodSeconds: 10 });
    n.manager.stop();
  });

  it('for disk, node-level reclaim comes first: if it frees enough, no pod is evicted', async () => {
    const n = node({ evictionHard: { 'nodefs.available': '10%' } }, [described('writer', { diskMi: 50 })], { baseMi: 500, reclaimableDiskMi: 450 });
    expect(await n.manager.pass()).toEqual({ type: 'reclaimed', signal: 'nodefs.available' });
    expect(n.evictions).toEqual([]);
    n.manager.stop();
  });

  it('never evicts static or system-critical pods', async () => {
    const n = node(
      { evictionHard: { 'memory.available': '100Mi' } },
      [described('static', { memoryMi: 200, static: true }), described('critical', { memoryMi: 200, priority: 2_000_000_000 })],
      { baseMi: 700 },
    );
    expect(await n.manager.pass()).toEqual({ type: 'no-candidate', signal: 'memory.available' });
    n.manager.stop();
  });
});
