// Public surface of controllers/namespace: the namespace controller (docs/namespace-controller.md).
export { namespaceController } from './namespace-controller.js';
export type { NamespaceControllerOptions } from './namespace-controller.js';
export { deletionConditions } from './conditions.js';
export type { DeletionState, NamespaceCondition } from './conditions.js';
