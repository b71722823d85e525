// Topology hints and how the topology manager merges them (upstream's TopologyHint and merge
// rules): a provider (CPU manager, memory manager) says, per resource, which NUMA node sets could
// satisfy a container and which of those it prefers; the policy picks one set for all of them.
import { countOf, everyMask, isNarrower, maskOf, nodesOf, type NumaMask } from './numa-mask.js';

export interface TopologyHint {
  /** The NUMA nodes; undefined: any (the provider does not care). */
  readonly affinity: NumaMask | undefined;
  readonly preferred: boolean;
}

/**
 * One provider's hints for one container (or pod): by resource name. A missing map or resource
 * means "no preference"; an empty list means "no NUMA node set can satisfy it".
 */
export type ProviderHints = Readonly<Record<string, readonly TopologyHint[] | undefined>> | undefined;

export type TopologyPolicyName = 'none' | 'best-effort' | 'restricted' | 'single-numa-node';

export interface MergeOptions {
  readonly numaNodes: readonly number[];
  /** `prefer-closest-numa-nodes`: among preferred hints of one width, the one whose nodes are closest. */
  readonly preferClosestNuma?: boolean | undefined;
  /** Distances by node id, then by node id (sysfs `distance`), for `preferClosestNuma`. */
  readonly distances?: ReadonlyMap<number, readonly number[]> | undefined;
}

const ANY: TopologyHint = { affinity: undefined, preferred: true };
const NONE_POSSIBLE: TopologyHint = { affinity: undefined, preferred: false };

/** Each provider's resources as lists of hints, "no preference" and "impossible" spelled out. */
function filterProvidersHints(providers: readonly ProviderHints[]): TopologyHint[][] {
  const all: TopologyHint[][] = [];
  for (const hints of providers) {
    const resources = hints ? Object.keys(hints) : [];
    if (resources.length === 0) {
      all.push([ANY]);
      continue;
    }
    for (const resource of resources) {
      const list = hints![resource];
      if (list === undefined) all.push([ANY]);
      else if (list.length === 0) all.push([NONE_POSSIBLE]);
      else all.push([...list]);
    }
  }
  return all;
}

/** The mean distance between the nodes of a mask (lower is closer). */
function meanDistance(mask: NumaMask, distances: ReadonlyMap<number, readonly number[]>): number {
  const nodes = nodesOf(mask);
  let sum = 0;
  let count = 0;
  for (const a of nodes) for (const b of nodes) if (a !== b) {
    sum += distances.get(a)?.[b] ?? 0;
    count++;
  }
  return count === 0 ? 0 : sum / count;
}

/** Of two masks, the fitter: the narrower; with prefer-closest-numa-nodes, of equal width the closer (then the lower). */
function fitter(current: NumaMask, candidate: NumaMask, options: MergeOptions): NumaMask {
  if (current === candidate) return current;
  if (options.preferClosestNuma && options.distances && countOf(candidate) === countOf(current)) {
    const a = meanDistance(candidate, options.distances);
    const b = meanDistance(current, options.distances);
    if (a !== b) return a < b ? candidate : current;
  }
  return isNarrower(candidate, current) ? candidate : current;
}

/**
 * Upstream's choice between the best merged hint so far and a candidate: any placement beats
 * none, preferred beats not preferred, of two preferred the fitter mask. Of two not preferred,
 * the one whose width is closest to `wanted` without passing it (the widest of the providers'
 * narrowest hints: a placement that holds what the most demanding provider needs), else the fitter.
 */
function better(current: TopologyHint | undefined, candidate: TopologyHint, wanted: number, options: MergeOptions): TopologyHint | undefined {
  if (candidate.affinity === undefined || countOf(candidate.affinity) === 0) return current;
  if (!current || current.affinity === undefined) return candidate;
  if (current.preferred !== candidate.preferred) return candidate.preferred ? candidate : current;
  const pick = () => (fitter(current.affinity!, candidate.affinity!, options) === current.affinity ? current : candidate);
  if (current.preferred) return pick();
  const now = countOf(current.affinity);
  const next = countOf(candidate.affinity);
  if (now > wanted) return pick();
  if (now === wanted) return next === wanted ? pick() : current;
  if (next > wanted) return current;
  if (next === wanted) return candidate;
  if (next !== now) return next > now ? candidate : current;
  return pick();
}

/**
 * The best hint of every combination that takes one hint from each list: a combination's
 * affinity is the intersection of its hints' (any = every node); it is preferred when every hint
 * is and all that name nodes name the same ones. An empty intersection is no candidate; the
 * candidates are compared by {@link better}. Nothing fits: every node, not preferred.
 */
export function mergeHints(lists: readonly (readonly TopologyHint[])[], options: MergeOptions): TopologyHint {
  const all = maskOf(options.numaNodes);
  let wanted = 0;
  for (const list of lists) {
    let narrowest: NumaMask | undefined;
    for (const hint of list) if (hint.affinity !== undefined && (narrowest === undefined || isNarrower(hint.affinity, narrowest))) narrowest = hint.affinity;
    if (narrowest !== undefined) wanted = Math.max(wanted, countOf(narrowest));
  }
  let best: TopologyHint | undefined;
  const walk = (index: number, affinity: NumaMask, first: NumaMask | undefined, preferred: boolean): void => {
    if (index === lists.length) {
      best = better(best, { affinity, preferred }, wanted, options);
      return;
    }
    for (const hint of lists[index]!) {
      const named = hint.affinity;
      const same = named === undefined || first === undefined || named === first;
      walk(index + 1, affinity & (named ?? all), first ?? named, preferred && hint.preferred && same);
    }
  };
  walk(0, all, undefined, true);
  return best ?? { affinity: all, preferred: false };
}

export interface PolicyDecision {
  readonly hint: TopologyHint;
  readonly admit: boolean;
}

/**
 * A policy's answer for the hints of all providers: `none` takes any placement; `best-effort`
 * merges and admits whatever the outcome; `restricted` admits only a preferred merge;
 * `single-numa-node` merges only hints of one node (or "any") and admits only a preferred merge,
 * an affinity of every node becoming "any".
 */
export function decide(policy: TopologyPolicyName, providers: readonly ProviderHints[], options: MergeOptions): PolicyDecision {
  if (policy === 'none') return { hint: ANY, admit: true };
  let lists = filterProvidersHints(providers);
  if (policy === 'single-numa-node') {
    lists = lists.map((list) => list.filter((hint) => hint.preferred && (hint.affinity === undefined || countOf(hint.affinity) === 1)));
  }
  let hint = mergeHints(lists, options);
  if (policy === 'best-effort') return { hint, admit: true };
  if (policy === 'single-numa-node' && hint.affinity === maskOf(options.numaNodes)) hint = { affinity: undefined, preferred: hint.preferred };
  return { hint, admit: hint.preferred };
}

/** Hints for `request` units spread over NUMA nodes: every node set whose free amount holds it; preferred are the narrowest sets whose total could. */
export function hintsForAmount(numaNodes: readonly number[], request: number, totalOn: (mask: NumaMask) => number, freeOn: (mask: NumaMask) => number): TopologyHint[] {
  let minWidth = numaNodes.length;
  const fitting: NumaMask[] = [];
  for (const mask of everyMask(numaNodes)) {
    if (totalOn(mask) >= request && countOf(mask) < minWidth) minWidth = countOf(mask);
    if (freeOn(mask) >= request) fitting.push(mask);
  }
  return fitting.map((affinity) => ({ affinity, preferred: countOf(affinity) === minWidth }));
}
