/**
 * Each score's preference: the finder, given two feasible nodes that differ in one respect only,
 * picks the one the score prefers (real NodeInfo sums, real pods; no server needed), and the
 * least-allocated spread end to end through a real API server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SchedulerCache, NodeFinder, DEFAULT_FILTERS, DEFAULT_SCORES, podInfo } from '../../../controllers/scheduler/index.js';
import { balancedAllocation, leastAllocated, nodeAffinityScore, taintTolerationScore } from '../../../controllers/scheduler/scores/index.js';
import { builtin } from '../../../src/client/index.js';
import { createNodes, createPods, node, pod, startBed, type NodeInit, type SchedulerTestBed } from './support.js';

function cluster(nodes: Record<string, NodeInit>, bound: { name: string; node: string; cpu?: string; memory?: string }[] = []): SchedulerCache {
  const cache = new SchedulerCache();
  for (const [name, init] of Object.entries(nodes)) cache.upsertNode(node(name, init));
  for (const b of bound) cache.upsertBoundPod(pod(b.name, { nodeName: b.node, ...(b.cpu ? { cpu: b.cpu } : {}), ...(b.memory ? { memory: b.memory } : {}) }));
  return cache;
}

/** The node chosen for `p`, every time of 20 tries (ties would show up as a mix). */
function choose(cache: SchedulerCache, p: ReturnType<typeof pod>): string {
  const finder = new NodeFinder({ filters: DEFAULT_FILTERS, scores: DEFAULT_SCORES });
  const picks = new Set<string>();
  for (let i = 0; i < 20; i++) {
    const placement = finder.find(podInfo(p), cache);
    if ('error' in placement) throw new Error(placement.error.message);
    picks.add(placement.node);
  }
  expect(picks.size).toBe(1);
  return [...picks][0]!;
}

describe('scores', () => {
  it('least allocated: prefers the node with more cpu and memory left', () => {
    const cache = cluster({ busy: {}, idle: {} }, [{ name: 'x', node: 'busy', cpu: '2', memory: '4Gi' }]);
    const p = pod('p', { cpu: '100m', memory: '100Mi' });
    expect(leastAllocated.score(podInfo(p), cache.node('idle')!)).toBeGreaterThan(leastAllocated.score(podInfo(p), cache.node('busy')!));
    expect(choose(cache, p)).toBe('idle');
  });

  it('least allocated counts request-less containers at 100m cpu and 200Mi memory', () => {
    const cache = cluster({ a: {}, b: {} }, [{ name: 'x', node: 'a' }, { name: 'y', node: 'a' }]);
    expect(choose(cache, pod('p'))).toBe('b');
  });

  it('balanced allocation: prefers the node whose cpu and memory use would be even', () => {
    // Both nodes have the same free share on average; only the balance differs.
    const cache = cluster({ lopsided: { cpu: '4', memory: '4Gi' }, even: { cpu: '4', memory: '4Gi' } }, [
      { name: 'x', node: 'lopsided', cpu: '2', memory: '0' },
      { name: 'y', node: 'even', cpu: '1', memory: '1Gi' },
    ]);
    const p = podInfo(pod('p', { cpu: '500m', memory: '512Mi' }));
    expect(balancedAllocation.score(p, cache.node('even')!)).toBeGreaterThan(balancedAllocation.score(p, cache.node('lopsided')!));
    expect(choose(cache, pod('p', { cpu: '500m', memory: '512Mi' }))).toBe('even');
  });

  it('preferred node affinity: prefers the node matching the heavier preferences', () => {
    const cache = cluster({ a: { labels: { zone: 'z1' } }, b: { labels: { zone: 'z2', disk: 'ssd' } }, c: {} });
    const preferred = [
      { weight: 10, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] } },
      { weight: 30, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } },
    ];
    const p = pod('p', { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred } } });
    const scores = ['a', 'b', 'c'].map((n) => nodeAffinityScore.score(podInfo(p), cache.node(n)!));
    expect(scores).toEqual([10, 30, 0]);
    nodeAffinityScore.normalize!(scores);
    expect(scores).toEqual([33, 100, 0]);
    expect(choose(cache, p)).toBe('b');
  });

  it('taint toleration: avoids untolerated PreferNoSchedule taints, unless tolerated', () => {
    const cache = cluster({ soft: { taints: [{ key: 'spot', effect: 'PreferNoSchedule' }] }, plain: {} });
    expect(choose(cache, pod('p'))).toBe('plain');
    const scores = ['soft', 'plain'].map((n) => taintTolerationScore.score(podInfo(pod('p')), cache.node(n)!));
    taintTolerationScore.normalize!(scores);
    expect(scores).toEqual([0, 100]);
    const tolerant = podInfo(pod('t', { tolerations: [{ key: 'spot', operator: 'Exists', effect: 'PreferNoSchedule' }] }));
    expect(taintTolerationScore.score(tolerant, cache.node('soft')!)).toBe(0);
  });

  it('breaks ties between equal nodes at random', () => {
    const cache = cluster({ a: {}, b: {}, c: {} });
    const finder = new NodeFinder({ filters: DEFAULT_FILTERS, scores: DEFAULT_SCORES });
    const picks = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const placement = finder.find(podInfo(pod('p')), cache);
      if (!('error' in placement)) picks.add(placement.node);
    }
    expect([...picks].sort()).toEqual(['a', 'b', 'c']);
  });
});

describe('scores through the API server', () => {
  let bed: SchedulerTestBed | undefined;
  afterEach(async () => bed?.close());

  it('spreads pods over equal nodes by least allocation', async () => {
    bed = await startBed();
    await createNodes(bed.client, node('a', { cpu: '4' }), node('b', { cpu: '4' }));
    bed.start();
    const pods = Array.from({ length: 8 }, (_, i) => pod(`p${i}`, { cpu: '500m' }));
    await createPods(bed.client, ...pods);
    const client = bed.client;
    let bound: string[] = [];
    for (let i = 0; i < 800 && bound.length < 8; i++) {
      bound = (await client.list(builtin.pods)).items.map((p) => p.spec.nodeName ?? '').filter(Boolean);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(bound.filter((n) => n === 'a')).toHaveLength(4);
    expect(bound.filter((n) => n === 'b')).toHaveLength(4);
  });
});
