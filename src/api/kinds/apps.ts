import { z } from 'zod';
import { objectMetaSchema } from '../meta.js';
import { conditionSchema, intOrStringSchema, kindSchema, labelSelectorSchema, nonNegativeInt, requiredPart } from './common.js';
import { podTemplateSpecSchema } from './pod.js';
import { persistentVolumeClaimSpecSchema } from './volumes.js';

/** apps/v1: the workload controllers and the revisions they keep. */

// The fields every replicated workload shares; each kind adds its own strategy and status.
const workloadSpec = {
  selector: labelSelectorSchema,
  template: podTemplateSpecSchema,
  minReadySeconds: nonNegativeInt.optional(),
  revisionHistoryLimit: nonNegativeInt.optional(),
};

const rollingUpdate = z.looseObject({
  maxUnavailable: intOrStringSchema.optional(),
  maxSurge: intOrStringSchema.optional(),
});

export const deploymentSpecSchema = z.looseObject({
  ...workloadSpec,
  replicas: nonNegativeInt.optional(),
  strategy: z
    .looseObject({
      type: z.enum(['RollingUpdate', 'Recreate']).optional(),
      rollingUpdate: rollingUpdate.optional(),
    })
    .optional(),
  paused: z.boolean().optional(),
  progressDeadlineSeconds: z.int().min(1).optional(),
});

export const deploymentStatusSchema = z.looseObject({
  observedGeneration: z.int().optional(),
  replicas: nonNegativeInt.optional(),
  updatedReplicas: nonNegativeInt.optional(),
  readyReplicas: nonNegativeInt.optional(),
  availableReplicas: nonNegativeInt.optional(),
  unavailableReplicas: nonNegativeInt.optional(),
  terminatingReplicas: nonNegativeInt.optional(),
  conditions: z.array(conditionSchema).optional(),
  collisionCount: z.int().optional(),
});

export const deploymentSchema = kindSchema({
  spec: requiredPart(deploymentSpecSchema),
  status: deploymentStatusSchema.optional(),
});

export const replicaSetSpecSchema = z.looseObject({
  ...workloadSpec,
  replicas: nonNegativeInt.optional(),
});

export const replicaSetStatusSchema = z.looseObject({
  replicas: nonNegativeInt.optional(),
  fullyLabeledReplicas: nonNegativeInt.optional(),
  readyReplicas: nonNegativeInt.optional(),
  availableReplicas: nonNegativeInt.optional(),
  terminatingReplicas: nonNegativeInt.optional(),
  observedGeneration: z.int().optional(),
  conditions: z.array(conditionSchema).optional(),
});

export const replicaSetSchema = kindSchema({
  spec: requiredPart(replicaSetSpecSchema),
  status: replicaSetStatusSchema.optional(),
});

export const statefulSetSpecSchema = z.looseObject({
  ...workloadSpec,
  replicas: nonNegativeInt.optional(),
  serviceName: z.string().optional(),
  volumeClaimTemplates: z
    .array(z.looseObject({ metadata: objectMetaSchema.optional(), spec: requiredPart(persistentVolumeClaimSpecSchema) }))
    .optional(),
  podManagementPolicy: z.enum(['OrderedReady', 'Parallel']).optional(),
  updateStrategy: z
    .looseObject({
      type: z.enum(['RollingUpdate', 'OnDelete']).optional(),
      rollingUpdate: z
        .looseObject({ partition: nonNegativeInt.optional(), maxUnavailable: intOrStringSchema.optional() })
        .optional(),
    })
    .optional(),
  persistentVolumeClaimRetentionPolicy: z
    .looseObject({
      whenDeleted: z.enum(['Retain', 'Delete']).optional(),
      whenScaled: z.enum(['Retain', 'Delete']).optional(),
    })
    .optional(),
  ordinals: z.looseObject({ start: nonNegativeInt.optional() }).optional(),
});

export const statefulSetStatusSchema = z.looseObject({
  observedGeneration: z.int().optional(),
  replicas: nonNegativeInt.optional(),
  readyReplicas: nonNegativeInt.optional(),
  currentReplicas: nonNegativeInt.optional(),
  updatedReplicas: nonNegativeInt.optional(),
  availableReplicas: nonNegativeInt.optional(),
  currentRevision: z.string().optional(),
  updateRevision: z.string().optional(),
  collisionCount: z.int().optional(),
  conditions: z.array(conditionSchema).optional(),
});

export const statefulSetSchema = kindSchema({
  spec: requiredPart(statefulSetSpecSchema),
  status: statefulSetStatusSchema.optional(),
});

export const daemonSetSpecSchema = z.looseObject({
  ...workloadSpec,
  updateStrategy: z
    .looseObject({
      type: z.enum(['RollingUpdate', 'OnDelete']).optional(),
      rollingUpdate: rollingUpdate.optional(),
    })
    .optional(),
});

export const daemonSetStatusSchema = z.looseObject({
  currentNumberScheduled: nonNegativeInt.optional(),
  numberMisscheduled: nonNegativeInt.optional(),
  desiredNumberScheduled: nonNegativeInt.optional(),
  numberReady: nonNegativeInt.optional(),
  observedGeneration: z.int().optional(),
  updatedNumberScheduled: nonNegativeInt.optional(),
  numberAvailable: nonNegativeInt.optional(),
  numberUnavailable: nonNegativeInt.optional(),
  collisionCount: z.int().optional(),
  conditions: z.array(conditionSchema).optional(),
});

export const daemonSetSchema = kindSchema({
  spec: requiredPart(daemonSetSpecSchema),
  status: daemonSetStatusSchema.optional(),
});

export const controllerRevisionSchema = kindSchema({
  /** The serialized state the revision captured (a patch of the owner's template). */
  data: z.unknown().optional(),
  revision: z.int(),
});

export type DeploymentSpec = z.infer<typeof deploymentSpecSchema>;
export type Deployment = z.infer<typeof deploymentSchema>;
export type ReplicaSet = z.infer<typeof replicaSetSchema>;
export type StatefulSet = z.infer<typeof statefulSetSchema>;
export type DaemonSet = z.infer<typeof daemonSetSchema>;
export type ControllerRevision = z.infer<typeof controllerRevisionSchema>;
