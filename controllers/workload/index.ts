// Public surface of controllers/workload: what the workload loops share to make and remove pods
// (docs/controllers.md#workload-pods).
export { podFromTemplate, podNamePrefix } from './pod-template.js';
export type { PodFromTemplateOptions } from './pod-template.js';
export { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from './slow-start.js';
export { createPods, isNamespaceTerminating } from './create-pods.js';
export type { CreatePodsOptions, CreatePodsResult } from './create-pods.js';
export { deletePods } from './delete-pods.js';
export type { DeletePodsOptions } from './delete-pods.js';
export { isPodActive, isPodAvailable, isPodReady, isPodTerminating, podAvailableAt, podReadyCondition, podReadySince } from './pod-readiness.js';
export { compareActivePods, POD_DELETION_COST, podsToDelete } from './pod-ranking.js';
export { orphanTriggers } from './orphan-triggers.js';
export { findCondition, removeCondition, setCondition } from './conditions.js';
export type { WorkloadCondition } from './conditions.js';
