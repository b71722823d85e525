// Public surface of controllers/daemonset: the DaemonSet controller (docs/controller-manager.md#daemonset-controller).
export { daemonSetController } from './daemonset-controller.js';
export type { DaemonSetControllerOptions } from './daemonset-controller.js';
export { daemonPodTemplate, daemonTolerations, isPodUpdated, nodeFit, REVISION_HASH_LABEL, targetNodeOf, TEMPLATE_GENERATION_LABEL, withNodeNameAffinity } from './daemon-pod.js';
export type { NodeFit } from './daemon-pod.js';
