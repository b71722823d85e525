import { APPS_GROUP, AUTOSCALING_GROUP, BATCH_GROUP, POLICY_GROUP } from '../groups.js';
import {
  controllerRevisionSchema,
  cronJobSchema,
  daemonSetSchema,
  deploymentSchema,
  horizontalPodAutoscalerSchema,
  horizontalPodAutoscalerV1Schema,
  jobSchema,
  podDisruptionBudgetSchema,
  replicaSetSchema,
  statefulSetSchema,
} from '../kinds/index.js';
import { defineResourceType, integerAt, type ResourceType } from '../resource-type.js';
import { cronJobStrategy, jobStrategy } from '../batch/job-strategy.js';
import { deploymentStrategy, replicaSetStrategy } from './replicated-validation.js';
import { horizontalPodAutoscalerStrategy, horizontalPodAutoscalerV1Strategy } from './autoscaling-validation.js';
import { horizontalPodAutoscalerFromV1, horizontalPodAutoscalerToV1 } from './autoscaling-v1-conversion.js';
import { daemonSetStrategy, podDisruptionBudgetStrategy, statefulSetStrategy } from './node-workload-validation.js';

/** apps, batch, autoscaling and policy: the groups Kubernetes leaves unsuffixed. */

const apps = { group: APPS_GROUP, version: 'v1', namespaced: true } as const;
const batch = { group: BATCH_GROUP, version: 'v1', namespaced: true } as const;

export const appsTypes: readonly ResourceType[] = [
  defineResourceType({ ...apps, kind: 'ControllerRevision', resource: 'controllerrevisions', schema: controllerRevisionSchema }),
  defineResourceType({
    ...apps,
    kind: 'DaemonSet',
    resource: 'daemonsets',
    shortNames: ['ds'],
    categories: ['all'],
    schema: daemonSetSchema,
    subresources: ['status'],
    strategy: daemonSetStrategy,
  }),
  defineResourceType({
    ...apps,
    kind: 'Deployment',
    resource: 'deployments',
    shortNames: ['deploy'],
    categories: ['all'],
    schema: deploymentSchema,
    subresources: ['scale', 'status'],
    strategy: deploymentStrategy,
  }),
  defineResourceType({
    ...apps,
    kind: 'ReplicaSet',
    resource: 'replicasets',
    shortNames: ['rs'],
    categories: ['all'],
    schema: replicaSetSchema,
    subresources: ['scale', 'status'],
    strategy: replicaSetStrategy,
    fieldSelectors: { 'status.replicas': integerAt('status.replicas') },
  }),
  defineResourceType({
    ...apps,
    kind: 'StatefulSet',
    resource: 'statefulsets',
    shortNames: ['sts'],
    categories: ['all'],
    schema: statefulSetSchema,
    subresources: ['scale', 'status'],
    strategy: statefulSetStrategy,
  }),
];

export const autoscalingTypes: readonly ResourceType[] = [
  defineResourceType({
    group: AUTOSCALING_GROUP,
    version: 'v2',
    namespaced: true,
    kind: 'HorizontalPodAutoscaler',
    resource: 'horizontalpodautoscalers',
    shortNames: ['hpa'],
    categories: ['all'],
    schema: horizontalPodAutoscalerSchema,
    subresources: ['status'],
    strategy: horizontalPodAutoscalerStrategy,
  }),
  // After v2: v2 stays the preferred version and the one a kind lookup finds.
  defineResourceType({
    group: AUTOSCALING_GROUP,
    version: 'v1',
    namespaced: true,
    kind: 'HorizontalPodAutoscaler',
    resource: 'horizontalpodautoscalers',
    shortNames: ['hpa'],
    categories: ['all'],
    schema: horizontalPodAutoscalerV1Schema,
    subresources: ['status'],
    strategy: horizontalPodAutoscalerV1Strategy,
    storageVersion: 'v2',
    conversion: { toStorage: horizontalPodAutoscalerFromV1, fromStorage: horizontalPodAutoscalerToV1 },
  }),
];

export const batchTypes: readonly ResourceType[] = [
  defineResourceType({
    ...batch,
    kind: 'CronJob',
    resource: 'cronjobs',
    shortNames: ['cj'],
    categories: ['all'],
    schema: cronJobSchema,
    subresources: ['status'],
    strategy: cronJobStrategy,
  }),
  defineResourceType({
    ...batch,
    kind: 'Job',
    resource: 'jobs',
    categories: ['all'],
    schema: jobSchema,
    subresources: ['status'],
    strategy: jobStrategy,
    // The label says "successful"; the field it reads is status.succeeded.
    fieldSelectors: { 'status.successful': integerAt('status.succeeded') },
  }),
];

export const policyTypes: readonly ResourceType[] = [
  defineResourceType({
    group: POLICY_GROUP,
    version: 'v1',
    namespaced: true,
    kind: 'PodDisruptionBudget',
    resource: 'poddisruptionbudgets',
    shortNames: ['pdb'],
    schema: podDisruptionBudgetSchema,
    subresources: ['status'],
    strategy: podDisruptionBudgetStrategy,
  }),
];
