import type { FilterPlugin } from '../plugin.js';
import { toleratedBy } from '../../node-matching/index.js';

/**
 * A node's NoSchedule and NoExecute taints must each be tolerated (PreferNoSchedule only lowers
 * the score). A node that is not Ready carries a `not-ready` (or `unreachable`) taint here. The
 * reason names the first taint not tolerated, as kube-scheduler does.
 */
export const taintToleration: FilterPlugin = {
  name: 'TaintToleration',
  filter(pod, node) {
    for (const taint of node.taints) {
      if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
      if (!toleratedBy(pod.pod.spec.tolerations, taint)) return [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`];
    }
    return undefined;
  },
};
