import { z } from 'zod';
import { objectMetaSchema } from '../meta.js';
import { persistentVolumeClaimSpecSchema } from './volumes.js';
import {
  conditionSchema,
  kindSchema,
  localObjectReferenceSchema,
  looseSchema,
  nonNegativeInt,
  protocolSchema,
  resourceListSchema,
  stringMapSchema,
  timeSchema,
  requiredPart,
} from './common.js';

/** The Pod and the PodSpec that every workload kind embeds in its template. */

export const containerPortSchema = z.looseObject({
  name: z.string().optional(),
  containerPort: z.int().min(1).max(65535),
  protocol: protocolSchema.optional(),
  hostPort: z.int().min(0).max(65535).optional(),
  hostIP: z.string().optional(),
});

export const envVarSchema = z.looseObject({
  name: z.string().min(1),
  value: z.string().optional(),
  valueFrom: looseSchema.optional(),
});

export const resourceRequirementsSchema = z.looseObject({
  limits: resourceListSchema.optional(),
  requests: resourceListSchema.optional(),
  claims: z.array(looseSchema).optional(),
});

export const volumeMountSchema = z.looseObject({
  name: z.string().min(1),
  mountPath: z.string().min(1),
  readOnly: z.boolean().optional(),
  subPath: z.string().optional(),
  subPathExpr: z.string().optional(),
  mountPropagation: z.enum(['None', 'HostToContainer', 'Bidirectional']).optional(),
});

export const probeSchema = z.looseObject({
  exec: looseSchema.optional(),
  httpGet: looseSchema.optional(),
  tcpSocket: looseSchema.optional(),
  grpc: looseSchema.optional(),
  initialDelaySeconds: nonNegativeInt.optional(),
  timeoutSeconds: nonNegativeInt.optional(),
  periodSeconds: nonNegativeInt.optional(),
  successThreshold: nonNegativeInt.optional(),
  failureThreshold: nonNegativeInt.optional(),
  terminationGracePeriodSeconds: z.int().optional(),
});

export const containerSchema = z.looseObject({
  name: z.string().min(1),
  image: z.string().min(1),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  workingDir: z.string().optional(),
  env: z.array(envVarSchema).optional(),
  envFrom: z.array(looseSchema).optional(),
  ports: z.array(containerPortSchema).optional(),
  resources: resourceRequirementsSchema.optional(),
  volumeMounts: z.array(volumeMountSchema).optional(),
  imagePullPolicy: z.enum(['Always', 'IfNotPresent', 'Never']).optional(),
  livenessProbe: probeSchema.optional(),
  readinessProbe: probeSchema.optional(),
  startupProbe: probeSchema.optional(),
  lifecycle: looseSchema.optional(),
  securityContext: looseSchema.optional(),
  terminationMessagePath: z.string().optional(),
  terminationMessagePolicy: z.enum(['File', 'FallbackToLogsOnError']).optional(),
  /** Only `Always`, on an init container: it makes it a sidecar. */
  restartPolicy: z.enum(['Always']).optional(),
  stdin: z.boolean().optional(),
  stdinOnce: z.boolean().optional(),
  tty: z.boolean().optional(),
});

export const volumeSchema = z.looseObject({
  name: z.string().min(1),
  emptyDir: looseSchema.optional(),
  hostPath: z.looseObject({ path: z.string(), type: z.string().optional() }).optional(),
  configMap: looseSchema.optional(),
  secret: looseSchema.optional(),
  persistentVolumeClaim: z.looseObject({ claimName: z.string().min(1), readOnly: z.boolean().optional() }).optional(),
  // A generic ephemeral volume: the ephemeral-volume loop makes its claim `<pod>-<volume>` from the template.
  ephemeral: z
    .looseObject({ volumeClaimTemplate: z.looseObject({ metadata: looseSchema.optional(), spec: persistentVolumeClaimSpecSchema }) })
    .optional(),
  projected: looseSchema.optional(),
  downwardAPI: looseSchema.optional(),
});

export const tolerationSchema = z.looseObject({
  key: z.string().optional(),
  operator: z.enum(['Exists', 'Equal']).optional(),
  value: z.string().optional(),
  /** Empty means every effect. */
  effect: z.enum(['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  tolerationSeconds: z.int().optional(),
});

export const podSpecSchema = z.looseObject({
  containers: z.array(containerSchema).min(1),
  initContainers: z.array(containerSchema).optional(),
  ephemeralContainers: z.array(looseSchema).optional(),
  volumes: z.array(volumeSchema).optional(),
  nodeName: z.string().optional(),
  nodeSelector: stringMapSchema.optional(),
  restartPolicy: z.enum(['Always', 'OnFailure', 'Never']).optional(),
  serviceAccountName: z.string().optional(),
  /** Deprecated alias of serviceAccountName, still sent by old clients. */
  serviceAccount: z.string().optional(),
  automountServiceAccountToken: z.boolean().optional(),
  schedulerName: z.string().optional(),
  hostNetwork: z.boolean().optional(),
  hostPID: z.boolean().optional(),
  hostIPC: z.boolean().optional(),
  shareProcessNamespace: z.boolean().optional(),
  terminationGracePeriodSeconds: nonNegativeInt.optional(),
  activeDeadlineSeconds: z.int().min(1).optional(),
  dnsPolicy: z.enum(['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']).optional(),
  dnsConfig: looseSchema.optional(),
  hostname: z.string().optional(),
  subdomain: z.string().optional(),
  hostAliases: z.array(looseSchema).optional(),
  tolerations: z.array(tolerationSchema).optional(),
  affinity: looseSchema.optional(),
  topologySpreadConstraints: z.array(looseSchema).optional(),
  priorityClassName: z.string().optional(),
  priority: z.int().optional(),
  preemptionPolicy: z.enum(['PreemptLowerPriority', 'Never']).optional(),
  runtimeClassName: z.string().optional(),
  securityContext: looseSchema.optional(),
  imagePullSecrets: z.array(localObjectReferenceSchema).optional(),
  enableServiceLinks: z.boolean().optional(),
  overhead: resourceListSchema.optional(),
  readinessGates: z.array(looseSchema).optional(),
  schedulingGates: z.array(looseSchema).optional(),
  os: looseSchema.optional(),
});

const podIPSchema = z.looseObject({ ip: z.string() });

export const podStatusSchema = z.looseObject({
  phase: z.enum(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']).optional(),
  conditions: z.array(conditionSchema).optional(),
  message: z.string().optional(),
  reason: z.string().optional(),
  nominatedNodeName: z.string().optional(),
  hostIP: z.string().optional(),
  hostIPs: z.array(podIPSchema).optional(),
  podIP: z.string().optional(),
  podIPs: z.array(podIPSchema).optional(),
  startTime: timeSchema.optional(),
  initContainerStatuses: z.array(looseSchema).optional(),
  containerStatuses: z.array(looseSchema).optional(),
  ephemeralContainerStatuses: z.array(looseSchema).optional(),
  qosClass: z.enum(['Guaranteed', 'Burstable', 'BestEffort']).optional(),
});

export const podTemplateSpecSchema = z.looseObject({
  metadata: objectMetaSchema.optional(),
  spec: podSpecSchema,
});

export const podSchema = kindSchema({
  // An absent spec reports the missing containers, as Kubernetes does, rather than a missing spec.
  spec: requiredPart(podSpecSchema),
  status: podStatusSchema.optional(),
});

export type Container = z.infer<typeof containerSchema>;
export type PodSpec = z.infer<typeof podSpecSchema>;
export type PodStatus = z.infer<typeof podStatusSchema>;
export type PodTemplateSpec = z.infer<typeof podTemplateSpecSchema>;
export type Pod = z.infer<typeof podSchema>;
