import { describe, expect, it } from 'vitest';
import { isStatusError, type Pod } from '../../../src/api/index.js';
import { EvictionState, evictionMessage, evictionThresholds, rankForEviction, thresholdMet, type EvictionSignal, type Observations, type PodCandidate } from '../../../src/nodeagent/index.js';

const GI = 1024 ** 3;
const MI = 1024 ** 2;
const flags = (over: Partial<Parameters<typeof evictionThresholds>[0]> = {}) =>
  evictionThresholds({ evictionHard: {}, evictionSoft: {}, evictionSoftGracePeriodMs: {}, evictionMinimumReclaim: {}, ...over });
const seen = (entries: [EvictionSignal, number, number][]): Observations => new Map(entries.map(([s, available, capacity]) => [s, { available, capacity }]));

describe('eviction thresholds from the flags', () => {
  it('an empty --eviction-hard is the kubelet defaults; soft ones carry their grace and a minimum reclaim', () => {
    const defaults = flags();
    expect(defaults.map((t) => [t.signal, t.value, t.hard])).toEqual([
      ['memory.available', { quantity: 100 * MI }, true],
      ['nodefs.available', { percentage: 10 }, true],
      ['nodefs.inodesFree', { percentage: 5 }, true],
      ['imagefs.available', { percentage: 15 }, true],
    ]);
    const given = flags({
      evictionHard: { 'pid.available': '100' },
      evictionSoft: { 'memory.available': '1Gi' },
      evictionSoftGracePeriodMs: { 'memory.available': 30_000 },
      evictionMinimumReclaim: { 'memory.available': '500Mi' },
    });
    expect(given).toEqual([
      { signal: 'pid.available', value: { quantity: 100 }, gracePeriodMs: 0, hard: true, minReclaim: undefined },
      { signal: 'memory.available', value: { quantity: GI }, gracePeriodMs: 30_000, hard: false, minReclaim: { quantity: 500 * MI } },
    ]);
  });

  it('a bad value or a soft threshold without a grace period is a 400 Status', () => {
    const bads: Partial<Parameters<typeof evictionThresholds>[0]>[] = [{ evictionHard: { 'memory.available': 'lots' } }, { evictionHard: { 'nodefs.available': '120%' } }, { evictionSoft: { 'memory.available': '1Gi' } }];
    for (const bad of bads) {
      let error: unknown;
      try {
        flags(bad);
      } catch (e) {
        error = e;
      }
      expect(isStatusError(error, 'BadRequest')).toBe(true);
    }
  });
});

describe('which thresholds are met', () => {
  it('below the threshold is met; a percentage refers to the capacity; a minimum reclaim holds it until passed', () => {
    const [memory] = flags({ evictionHard: { 'memory.available': '1Gi' }, evictionMinimumReclaim: { 'memory.available': '500Mi' } });
    expect(thresholdMet(memory!, seen([['memory.available', GI - 1, 8 * GI]]), false)).toBe(true);
    expect(thresholdMet(memory!, seen([['memory.available', GI, 8 * GI]]), false)).toBe(false);
    expect(thresholdMet(memory!, seen([['memory.available', GI + 100 * MI, 8 * GI]]), true)).toBe(true);
    const [disk] = flags({ evictionHard: { 'nodefs.available': '10%' } });
    expect(thresholdMet(disk!, seen([['nodefs.available', 9, 100]]), false)).toBe(true);
    expect(thresholdMet(disk!, seen([['nodefs.available', 10, 100]]), false)).toBe(false);
    expect(thresholdMet(disk!, new Map(), false)).toBe(false);
  });

  it('a hard threshold acts at once; a soft one only after its grace; a met one stays until the minimum reclaim is reached', () => {
    const state = new EvictionState(
      flags({
        evictionHard: { 'pid.available': '100' },
        evictionSoft: { 'memory.available': '1Gi' },
        evictionSoftGracePeriodMs: { 'memory.available': 30_000 },
        evictionMinimumReclaim: { 'memory.available': '512Mi' },
      }),
    );
    const low = seen([['memory.available', 512 * MI, 8 * GI], ['pid.available', 10_000, 32_768]]);
    let decision = state.observe(low, 0);
    expect([...decision.pressures]).toEqual(['MemoryPressure']);
    expect(decision.toReclaim).toEqual([]);
    decision = state.observe(low, 29_999);
    expect(decision.toReclaim).toEqual([]);
    decision = state.observe(low, 30_000);
    expect(decision.toReclaim.map((t) => t.signal)).toEqual(['memory.available']);
    // Above the threshold but not past it by the minimum reclaim: still met.
    decision = state.observe(seen([['memory.available', GI + 100 * MI, 8 * GI]]), 31_000);
    expect(decision.toReclaim.map((t) => t.signal)).toEqual(['memory.available']);
    decision = state.observe(seen([['memory.available', GI + 600 * MI, 8 * GI]]), 32_000);
    expect(decision.met).toEqual([]);
    expect(decision.pressures.size).toBe(0);
    // Met again: the grace starts over.
    expect(state.observe(low, 33_000).toReclaim).toEqual([]);
    const pid = state.observe(seen([['pid.available', 50, 32_768]]), 34_000);
    expect(pid.toReclaim.map((t) => [t.signal, t.hard])).toEqual([['pid.available', true]]);
    expect([...pid.pressures]).toEqual(['PIDPressure']);
  });
});

const pod = (name: string, o: { priority?: number; memoryRequest?: string } = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: name },
  spec: {
    ...(o.priority !== undefined ? { priority: o.priority } : {}),
    containers: [{ name: 'main', image: 'x', ...(o.memoryRequest ? { resources: { requests: { memory: o.memoryRequest } } } : {}) }],
  },
});
const names = (list: PodCandidate[]) => list.map((c) => c.pod.metadata.name);

describe('ranking pods for eviction', () => {
  it('memory: usage above requests first, then lower priority, then usage above requests', () => {
    const candidates: PodCandidate[] = [
      { pod: pod('guaranteed-under', { memoryRequest: '256Mi' }), usage: { memoryBytes: 10 * MI } },
      { pod: pod('burstable-over', { memoryRequest: '10Mi' }), usage: { memoryBytes: 50 * MI } },
      { pod: pod('besteffort-high', { priority: 1000 }), usage: { memoryBytes: 100 * MI } },
      { pod: pod('besteffort-small'), usage: { memoryBytes: 5 * MI } },
      { pod: pod('besteffort-big'), usage: { memoryBytes: 80 * MI } },
    ];
    expect(names(rankForEviction(candidates, 'memory'))).toEqual(['besteffort-big', 'burstable-over', 'besteffort-small', 'besteffort-high', 'guaranteed-under']);
  });

  it('pids: lower priority first, then more processes', () => {
    const candidates: PodCandidate[] = [
      { pod: pod('a', { priority: 10 }), usage: { pids: 500 } },
      { pod: pod('b'), usage: { pids: 2 } },
      { pod: pod('c'), usage: { pids: 40 } },
    ];
    expect(names(rankForEviction(candidates, 'pids'))).toEqual(['c', 'b', 'a']);
  });

  it('ephemeral storage ranks as memory does, on disk usage and requests', () => {
    const candidates: PodCandidate[] = [
      { pod: pod('quiet'), usage: { diskBytes: 0 } },
      { pod: pod('writer'), usage: { diskBytes: 5 * MI } },
    ];
    expect(names(rankForEviction(candidates, 'ephemeral-storage'))).toEqual(['writer', 'quiet']);
  });
});

describe('the eviction message', () => {
  it("is upstream's wording, naming the resource, the threshold, what was available and the containers over their request", () => {
    const [threshold] = flags({ evictionHard: { 'memory.available': '1Gi' } });
    const message = evictionMessage(threshold!, { available: 512 * MI, capacity: 8 * GI }, pod('p', { memoryRequest: '10Mi' }), {
      memoryBytes: 20 * MI,
      containers: [{ name: 'main', memoryBytes: 20 * MI }],
    });
    expect(message).toBe('The node was low on resource: memory. Threshold quantity: 1Gi, available: 512Mi. Container main was using 20Mi, request is 10Mi, has larger consumption of memory. ');
  });
});
