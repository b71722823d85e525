// Hint merging by policy (upstream's merge rules) on described NUMA layouts.
import { describe, expect, it } from 'vitest';
import { decide, maskOf, mergeHints, type ProviderHints, type TopologyHint } from '../../../src/nodeagent/index.js';

const two = { numaNodes: [0, 1] };
const four = { numaNodes: [0, 1, 2, 3] };
const hint = (nodes: number[], preferred: boolean): TopologyHint => ({ affinity: maskOf(nodes), preferred });

describe('merging topology hints', () => {
  it('intersects one hint per provider and keeps the preferred, narrowest result', () => {
    const cpu = [hint([0], true), hint([1], true), hint([0, 1], false)];
    const memory = [hint([1], true), hint([0, 1], false)];
    expect(mergeHints([cpu, memory], two)).toEqual(hint([1], true));
  });

  it('prefers a preferred hint to a narrower one that is not', () => {
    expect(mergeHints([[hint([0], false), hint([0, 1], true)]], two)).toEqual(hint([0, 1], true));
  });

  it('is preferred only when the hints name the same nodes (upstream: a narrower intersection of preferred hints is not)', () => {
    expect(mergeHints([[hint([0], true)], [hint([0, 1], true)]], two)).toEqual(hint([0], false));
    expect(mergeHints([[hint([0], true)], [{ affinity: undefined, preferred: true }]], two)).toEqual(hint([0], true));
  });

  it('among placements that are not preferred, takes the one closest to the width the most demanding provider needs', () => {
    // CPU could use one node, memory needs at least two of four: two nodes, not one.
    const cpu = [hint([0], true), hint([0, 1], false), hint([0, 1, 2, 3], false)];
    const memory = [hint([0, 1], true), hint([2, 3], true), hint([0, 1, 2, 3], false)];
    expect(mergeHints([cpu, memory], four)).toEqual(hint([0, 1], false));
  });

  it('skips combinations that share no node; nothing left is every node, not preferred', () => {
    expect(mergeHints([[hint([0], true)], [hint([1], true)]], two)).toEqual(hint([0, 1], false));
  });

  it('among preferred hints of one width, prefers the lower nodes, or with prefer-closest-numa-nodes the closest ones', () => {
    const candidates = [hint([0, 2], true), hint([2, 3], true)];
    expect(mergeHints([candidates], four)).toEqual(hint([0, 2], true));
    const distances = new Map([
      [0, [10, 11, 21, 21]],
      [1, [11, 10, 21, 21]],
      [2, [21, 21, 10, 11]],
      [3, [21, 21, 11, 10]],
    ]);
    expect(mergeHints([candidates], { ...four, preferClosestNuma: true, distances })).toEqual(hint([2, 3], true));
  });
});

describe('topology manager policies', () => {
  const cpuOnNode1: ProviderHints = { cpu: [hint([1], true), hint([0, 1], false)] };
  const memoryAcross: ProviderHints = { memory: [hint([0, 1], true)] };
  const memoryOnNode0: ProviderHints = { memory: [hint([0], true), hint([0, 1], false)] };
  const impossible: ProviderHints = { cpu: [] };

  it('none admits anything with no affinity', () => {
    expect(decide('none', [impossible], two)).toEqual({ hint: { affinity: undefined, preferred: true }, admit: true });
  });

  it('best-effort merges and admits even a placement that is not preferred', () => {
    const split = decide('best-effort', [cpuOnNode1, memoryOnNode0], two);
    expect(split.admit).toBe(true);
    expect(split.hint.preferred).toBe(false);
    // Preferred hints of different nodes merge to one that is not preferred; of those, the one as
    // wide as the most demanding provider needs (memory: both nodes) wins over the narrower one.
    expect(decide('best-effort', [cpuOnNode1, memoryAcross], two)).toEqual({ hint: hint([0, 1], false), admit: true });
    expect(decide('best-effort', [cpuOnNode1, undefined], two)).toEqual({ hint: hint([1], true), admit: true });
  });

  it('restricted refuses a merge that is not preferred (and a provider that can place nothing)', () => {
    expect(decide('restricted', [cpuOnNode1, memoryOnNode0], two).admit).toBe(false);
    expect(decide('restricted', [impossible], two).admit).toBe(false);
    expect(decide('restricted', [cpuOnNode1], two)).toEqual({ hint: hint([1], true), admit: true });
  });

  it('single-numa-node merges only single-node hints: memory that needs two nodes is refused, one node admitted', () => {
    expect(decide('single-numa-node', [cpuOnNode1, memoryAcross], two).admit).toBe(false);
    expect(decide('single-numa-node', [cpuOnNode1, { memory: [hint([1], true), hint([0, 1], true)] }], two)).toEqual({ hint: hint([1], true), admit: true });
  });

  it('single-numa-node turns an every-node result into "any" (providers without preference, or a one-node machine)', () => {
    expect(decide('single-numa-node', [undefined, {}], two)).toEqual({ hint: { affinity: undefined, preferred: true }, admit: true });
    expect(decide('single-numa-node', [{ cpu: [hint([0], true)] }], { numaNodes: [0] })).toEqual({ hint: { affinity: undefined, preferred: true }, admit: true });
  });
});
