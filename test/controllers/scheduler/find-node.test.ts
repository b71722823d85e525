import { describe, expect, it } from 'vitest';
import { DEFAULT_FILTERS, DEFAULT_SCORES, feasibleNodesToFind, NodeFinder, podInfo, SchedulerCache } from '../../../controllers/scheduler/index.js';
import { node, pod } from './support.js';

describe('how many nodes are searched', () => {
  it.each([
    [50, 0, 50],
    [99, 30, 99],
    [1000, 0, 420],
    [1000, 10, 100],
    [1000, 100, 1000],
    [5000, 0, 500],
    [10_000, 0, 500],
    [10_000, 30, 3000],
  ])('%d nodes at %d%% (0: adaptive): %d feasible nodes are enough', (total, percentage, expected) => {
    expect(feasibleNodesToFind(total, percentage)).toBe(expected);
  });

  it('starts each search where the last one stopped, so successive pods see the whole cluster', () => {
    const cache = new SchedulerCache();
    for (let i = 0; i < 300; i++) cache.upsertNode(node(`n${i}`));
    const finder = new NodeFinder({ filters: DEFAULT_FILTERS, scores: DEFAULT_SCORES, percentageOfNodesToScore: 10 });
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const placement = finder.find(podInfo(pod(`p${i}`)), cache);
      if ('error' in placement) throw new Error(placement.error.message);
      expect(placement.evaluated).toBe(100);
      const index = Number(placement.node.slice(1));
      expect(index).toBeGreaterThanOrEqual(i * 100);
      expect(index).toBeLessThan((i + 1) * 100);
      seen.add(placement.node);
    }
    expect(seen.size).toBe(3);
  });

  it('searches every node before it calls a pod unschedulable', () => {
    const cache = new SchedulerCache();
    for (let i = 0; i < 300; i++) cache.upsertNode(node(`n${i}`, { cpu: '1' }));
    const placement = new NodeFinder({ filters: DEFAULT_FILTERS, scores: DEFAULT_SCORES }).find(podInfo(pod('big', { cpu: '2' })), cache);
    expect('error' in placement && placement.error.message).toBe('0/300 nodes are available: 300 Insufficient cpu.');
  });
});
