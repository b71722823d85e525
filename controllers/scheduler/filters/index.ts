// The default filters, in the order they run (kube-scheduler's order for the plugins svc has).
import type { FilterPlugin } from '../plugin.js';
import { nodeAffinity } from './node-affinity.js';
import { nodePorts } from './node-ports.js';
import { nodeResourcesFit } from './node-resources-fit.js';
import { nodeUnschedulable } from './node-unschedulable.js';
import { taintToleration } from './taint-toleration.js';

export { nodeAffinity, REASON_AFFINITY } from './node-affinity.js';
export { nodePorts, REASON_PORTS } from './node-ports.js';
export { nodeResourcesFit, REASON_TOO_MANY_PODS } from './node-resources-fit.js';
export { nodeUnschedulable, REASON_UNSCHEDULABLE } from './node-unschedulable.js';
export { taintToleration } from './taint-toleration.js';

export const DEFAULT_FILTERS: readonly FilterPlugin[] = [nodeUnschedulable, taintToleration, nodeAffinity, nodePorts, nodeResourcesFit];
