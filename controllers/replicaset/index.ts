// Public surface of controllers/replicaset: the ReplicaSet controller and the replicated-kind loop the ReplicationController one runs on.
export { BURST_REPLICAS, replicaSetController, replicatedController } from './replica-set-controller.js';
export type { ReplicaSetControllerOptions } from './replica-set-controller.js';
export type { ReplicatedKind, ReplicatedStatus } from './replicated-kind.js';
export { calculateStatus, REPLICA_FAILURE, statusChanged } from './replica-status.js';
