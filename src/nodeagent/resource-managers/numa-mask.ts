// Sets of NUMA nodes as bit masks (node n is bit n), as the topology manager merges them. The
// topology manager refuses hosts of more than --topology-manager-policy-options
// max-allowable-numa-nodes (8 by default), so a 31-bit number always holds a mask.

export type NumaMask = number;

export const MAX_MASK_BITS = 30;

export const maskOf = (nodes: Iterable<number>): NumaMask => {
  let mask = 0;
  for (const node of nodes) mask |= 1 << node;
  return mask;
};

export function nodesOf(mask: NumaMask): number[] {
  const nodes: number[] = [];
  for (let bit = 0; bit <= MAX_MASK_BITS; bit++) if (mask & (1 << bit)) nodes.push(bit);
  return nodes;
}

export const countOf = (mask: NumaMask): number => nodesOf(mask).length;
export const hasNode = (mask: NumaMask, node: number): boolean => (mask & (1 << node)) !== 0;

/** Fewer nodes, or as many and lower ones: the kubelet's "narrower" order. */
export function isNarrower(a: NumaMask, b: NumaMask): boolean {
  const ca = countOf(a);
  const cb = countOf(b);
  return ca === cb ? a < b : ca < cb;
}

/** Every non-empty combination of `nodes`, smallest first (one node, then pairs, ...), as the kubelet iterates them. */
export function everyMask(nodes: readonly number[]): NumaMask[] {
  const masks: NumaMask[] = [];
  const choose = (start: number, left: number, mask: NumaMask): void => {
    if (left === 0) {
      masks.push(mask);
      return;
    }
    for (let i = start; i <= nodes.length - left; i++) choose(i + 1, left - 1, mask | (1 << nodes[i]!));
  };
  for (let size = 1; size <= nodes.length; size++) choose(0, size, 0);
  return masks;
}

export const formatMask = (mask: NumaMask | undefined): string => (mask === undefined ? 'any' : nodesOf(mask).join(','));
