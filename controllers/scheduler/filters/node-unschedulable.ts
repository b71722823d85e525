import type { FilterPlugin } from '../plugin.js';
import { TAINT_UNSCHEDULABLE, toleratedBy } from '../../node-matching/index.js';

export const REASON_UNSCHEDULABLE = 'node(s) were unschedulable';

/** A cordoned node (`spec.unschedulable`) takes only pods that tolerate `node.kubernetes.io/unschedulable:NoSchedule`. */
export const nodeUnschedulable: FilterPlugin = {
  name: 'NodeUnschedulable',
  filter(pod, node) {
    if (!node.node?.spec?.unschedulable) return undefined;
    return toleratedBy(pod.pod.spec.tolerations, { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' }) ? undefined : [REASON_UNSCHEDULABLE];
  },
};
