/**
 * Why a pod fits nowhere, as kube-scheduler says it: how many nodes there are and, per reason, on
 * how many nodes it held. The message is what users grep for:
 * `0/3 nodes are available: 1 node(s) had untolerated taint {x: y}, 2 Insufficient cpu.`
 * — "count reason" entries sorted as strings, as kube-scheduler sorts them.
 */
export class FitError {
  constructor(
    readonly nodeCount: number,
    /** Reason → number of nodes it applied to. */
    readonly reasons: ReadonlyMap<string, number>,
    /** A PreFilter's reason (no node was looked at): `0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.` */
    readonly preFilterReason?: string,
  ) {}

  get message(): string {
    if (this.nodeCount === 0) return 'no nodes available to schedule pods';
    if (this.preFilterReason !== undefined) return `0/${this.nodeCount} nodes are available: ${this.preFilterReason}.`;
    const entries = [...this.reasons].map(([reason, count]) => `${count} ${reason}`).sort();
    return `0/${this.nodeCount} nodes are available: ${entries.join(', ')}.`;
  }
}
