// Public surface of controllers/statefulset: the StatefulSet controller (docs/controller-manager.md#statefulset-controller).
export { statefulSetController } from './statefulset-controller.js';
export type { StatefulSetControllerOptions } from './statefulset-controller.js';
export { claimName, ordinalOf, POD_INDEX_LABEL, POD_NAME_LABEL, podName, REVISION_HASH_LABEL } from './stateful-pod.js';
export { wantedClaimOwners } from './claim-retention.js';
