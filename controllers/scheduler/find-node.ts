import { FitError } from './fit-error.js';
import type { NodeInfo } from './node-info.js';
import type { FilterPlugin, ScorePlugin } from './plugin.js';
import type { PodInfo } from './pod-info.js';

/** What the node search works on: the nodes that exist, in a stable order. */
export interface NodeSource {
  nodeInfos(): readonly NodeInfo[];
}

export interface FindNodeOptions {
  readonly filters: readonly FilterPlugin[];
  readonly scores: readonly ScorePlugin[];
  /**
   * Stop filtering once this share of the nodes (1–100) is feasible, and score only those; 0 or
   * undefined: adaptive, as kube-scheduler (50 % minus 1 % per 125 nodes, at least 5 %; and never
   * fewer than 100 nodes).
   */
  readonly percentageOfNodesToScore?: number | undefined;
  readonly random?: () => number;
}

const MIN_FEASIBLE_NODES_TO_FIND = 100;
const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/** How many feasible nodes are enough to stop looking, out of `total`. */
export function feasibleNodesToFind(total: number, percentage: number | undefined): number {
  if (total < MIN_FEASIBLE_NODES_TO_FIND || percentage === 100) return total;
  let share = percentage ?? 0;
  if (share <= 0) share = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND, 50 - Math.floor(total / 125));
  const count = Math.floor((total * share) / 100);
  return Math.max(count, MIN_FEASIBLE_NODES_TO_FIND);
}

export type Placement = { readonly node: string; readonly feasible: number; readonly evaluated: number } | { readonly error: FitError };

/**
 * Places one pod: filters the nodes — starting where the previous search stopped, so successive
 * pods spread over a large cluster — until enough are feasible, scores those, and returns the
 * best (a tie is broken at random). Synchronous and side-effect free but for the rotation.
 */
export class NodeFinder {
  #start = 0;

  constructor(readonly options: FindNodeOptions) {}

  find(pod: PodInfo, nodes: NodeSource): Placement {
    const infos = nodes.nodeInfos();
    const total = infos.length;
    if (total === 0) return { error: new FitError(0, new Map()) };
    for (const plugin of this.options.filters) {
      const reason = plugin.preFilter?.(pod);
      if (reason !== undefined) return { error: new FitError(total, new Map(), reason) };
    }
    const wanted = feasibleNodesToFind(total, this.options.percentageOfNodesToScore);
    const feasible: NodeInfo[] = [];
    const reasons = new Map<string, number>();
    let evaluated = 0;
    for (; evaluated < total && feasible.length < wanted; evaluated++) {
      const node = infos[(this.#start + evaluated) % total]!;
      const failed = this.#filter(pod, node);
      if (failed) for (const reason of new Set(failed)) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      else feasible.push(node);
    }
    this.#start = (this.#start + evaluated) % total;
    if (feasible.length === 0) return { error: new FitError(total, reasons) };
    if (feasible.length === 1) return { node: feasible[0]!.name, feasible: 1, evaluated };
    return { node: this.#best(pod, feasible), feasible: feasible.length, evaluated };
  }

  #filter(pod: PodInfo, node: NodeInfo): readonly string[] | undefined {
    for (const plugin of this.options.filters) {
      const reasons = plugin.filter(pod, node);
      if (reasons) return reasons;
    }
    return undefined;
  }

  #best(pod: PodInfo, feasible: readonly NodeInfo[]): string {
    const totals = new Array<number>(feasible.length).fill(0);
    for (const plugin of this.options.scores) {
      const scores = feasible.map((node) => plugin.score(pod, node));
      plugin.normalize?.(scores);
      for (let i = 0; i < scores.length; i++) totals[i]! += plugin.weight * scores[i]!;
    }
    // Reservoir sampling over the ties: each of k equal best nodes wins with probability 1/k.
    const random = this.options.random ?? Math.random;
    let best = 0;
    let ties = 1;
    for (let i = 1; i < totals.length; i++) {
      if (totals[i]! > totals[best]!) {
        best = i;
        ties = 1;
      } else if (totals[i] === totals[best]) {
        ties++;
        if (random() * ties < 1) best = i;
      }
    }
    return feasible[best]!.name;
  }
}
