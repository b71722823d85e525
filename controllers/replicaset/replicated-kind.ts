import type { KubeObject, LabelSelectorSpec, PodTemplateSpec } from '../../src/api/index.js';
import type { Resource } from '../../src/client/index.js';
import type { OwnerType } from '../controller-ref.js';
import type { WorkloadCondition } from '../workload/index.js';

/** The status a ReplicaSet and a ReplicationController share. */
export interface ReplicatedStatus {
  readonly replicas?: number | undefined;
  readonly fullyLabeledReplicas?: number | undefined;
  readonly readyReplicas?: number | undefined;
  readonly availableReplicas?: number | undefined;
  readonly observedGeneration?: number | undefined;
  readonly conditions?: readonly WorkloadCondition[] | undefined;
}

/**
 * What differs between the kinds this loop keeps replicas of: a ReplicaSet (apps/v1, a label
 * selector) and a ReplicationController (core v1, an equality map), as upstream runs its
 * ReplicationManager on the ReplicaSet controller through a conversion.
 */
export interface ReplicatedKind<T extends KubeObject> {
  /** The controller name (`replicaset-controller`, `replicationcontroller-controller`). */
  readonly name: string;
  readonly resource: Resource<T> & { readonly kind: string };
  readonly type: OwnerType;
  readonly selector: (object: T) => LabelSelectorSpec | undefined;
  readonly replicas: (object: T) => number;
  readonly minReadySeconds: (object: T) => number;
  readonly template: (object: T) => PodTemplateSpec | undefined;
  readonly status: (object: T) => ReplicatedStatus | undefined;
  readonly withStatus: (object: T, status: ReplicatedStatus) => T;
}
