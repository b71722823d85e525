import type { NodeInfo } from './node-info.js';
import type { PodInfo } from './pod-info.js';

/**
 * A filter: may `pod` run on `node`? Undefined when it may; otherwise the reasons it may not, each
 * worded as kube-scheduler words it, because they are counted across nodes into the pod's
 * `PodScheduled` message ("2 Insufficient cpu"). Filters run in order and a node stops at the first
 * that fails, so each node is counted once per reason of one filter.
 */
export interface FilterPlugin {
  readonly name: string;
  /**
   * Looked at once per attempt, before any node: a reason here makes the pod unschedulable on
   * every node at once (kube-scheduler's PreFilter), and the message says it without a count.
   */
  preFilter?(pod: PodInfo): string | undefined;
  filter(pod: PodInfo, node: NodeInfo): readonly string[] | undefined;
}

/**
 * A score: how much `pod` would like `node`, from 0 to 100 (after `normalize`, which sees the raw
 * scores of every feasible node and may rescale them in place). The weighted sum decides.
 */
export interface ScorePlugin {
  readonly name: string;
  readonly weight: number;
  score(pod: PodInfo, node: NodeInfo): number;
  normalize?(scores: number[]): void;
}

export const MAX_NODE_SCORE = 100;
