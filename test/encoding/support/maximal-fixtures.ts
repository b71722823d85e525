import * as k8s from '@kubernetes/client-node';
import type { ResourceType } from '../../../src/api/index.js';
import type { JsonObject } from '../../../src/encoding/index.js';

/**
 * Maximal JSON objects of the built-in kinds: every field Kubernetes' API has (as published in
 * @kubernetes/client-node's generated models, an independent source: not svc's .proto files),
 * set to a value that is not a zero value. A field svc's protobuf messages lack is then lost on
 * a JSON → protobuf → JSON round trip, and the round-trip test names it.
 */

/** The client-node model of each built-in kind. A kind missing here fails the round-trip test. */
export const MODEL_OF_KIND: Readonly<Record<string, string>> = {
  'v1/ConfigMap': 'V1ConfigMap',
  'v1/Endpoints': 'V1Endpoints',
  'v1/Event': 'CoreV1Event',
  'v1/LimitRange': 'V1LimitRange',
  'v1/Namespace': 'V1Namespace',
  'v1/Node': 'V1Node',
  'v1/PersistentVolumeClaim': 'V1PersistentVolumeClaim',
  'v1/PersistentVolume': 'V1PersistentVolume',
  'v1/Pod': 'V1Pod',
  'v1/ReplicationController': 'V1ReplicationController',
  'v1/ResourceQuota': 'V1ResourceQuota',
  'v1/Secret': 'V1Secret',
  'v1/ServiceAccount': 'V1ServiceAccount',
  'v1/Service': 'V1Service',
  'apps/v1/ControllerRevision': 'V1ControllerRevision',
  'apps/v1/DaemonSet': 'V1DaemonSet',
  'apps/v1/Deployment': 'V1Deployment',
  'apps/v1/ReplicaSet': 'V1ReplicaSet',
  'apps/v1/StatefulSet': 'V1StatefulSet',
  'events/v1/Event': 'EventsV1Event',
  'autoscaling/v2/HorizontalPodAutoscaler': 'V2HorizontalPodAutoscaler',
  'autoscaling/v1/HorizontalPodAutoscaler': 'V1HorizontalPodAutoscaler',
  'batch/v1/CronJob': 'V1CronJob',
  'batch/v1/Job': 'V1Job',
  'certificates/v1/CertificateSigningRequest': 'V1CertificateSigningRequest',
  'policy/v1/PodDisruptionBudget': 'V1PodDisruptionBudget',
  'rbac/v1/ClusterRoleBinding': 'V1ClusterRoleBinding',
  'rbac/v1/ClusterRole': 'V1ClusterRole',
  'rbac/v1/RoleBinding': 'V1RoleBinding',
  'rbac/v1/Role': 'V1Role',
  'storage/v1/StorageClass': 'V1StorageClass',
  'storage/v1/VolumeAttachment': 'V1VolumeAttachment',
  'coordination/v1/Lease': 'V1Lease',
  'authentication/v1/TokenReview': 'V1TokenReview',
  'admissionregistration/v1/MutatingWebhookConfiguration': 'V1MutatingWebhookConfiguration',
  'admissionregistration/v1/ValidatingWebhookConfiguration': 'V1ValidatingWebhookConfiguration',
  'admissionregistration/v1/ValidatingAdmissionPolicy': 'V1ValidatingAdmissionPolicy',
  'admissionregistration/v1/ValidatingAdmissionPolicyBinding': 'V1ValidatingAdmissionPolicyBinding',
  'authorization/v1/SubjectAccessReview': 'V1SubjectAccessReview',
  'authorization/v1/LocalSubjectAccessReview': 'V1LocalSubjectAccessReview',
  'authorization/v1/SelfSubjectAccessReview': 'V1SelfSubjectAccessReview',
  'authorization/v1/SelfSubjectRulesReview': 'V1SelfSubjectRulesReview',
  'discovery/v1/EndpointSlice': 'V1EndpointSlice',
  'apiregistration/v1/APIService': 'V1APIService',
};

/**
 * Kinds client-node has no model of (the resource metrics API's types live in k8s.io/metrics, not
 * k8s.io/api): every field of upstream's v1beta1 types, written out by hand.
 */
export const MAXIMAL_BY_HAND: Readonly<Record<string, () => JsonObject>> = {
  'metrics/v1beta1/NodeMetrics': () => ({
    metadata: maximalObject('V1ObjectMeta'),
    timestamp: '2026-01-02T03:04:05Z',
    window: '1m30.5s',
    usage: { cpu: '250m', memory: '128Mi' },
  }),
  'metrics/v1beta1/PodMetrics': () => ({
    metadata: maximalObject('V1ObjectMeta'),
    timestamp: '2026-01-02T03:04:05Z',
    window: '15s',
    containers: [{ name: 'c', usage: { cpu: '1', memory: '64Mi' } }],
  }),
};

/** `apps/v1/Deployment`, with svc's group names shortened to their first label (`rbac.authorization.svc.io` → `rbac`). */
export const kindKey = (t: Pick<ResourceType, 'group' | 'version' | 'kind'>): string =>
  t.group ? `${t.group.split('.')[0]}/${t.version}/${t.kind}` : `${t.version}/${t.kind}`;

interface Attribute {
  name: string;
  baseName: string;
  type: string;
  format: string;
}
type Model = { getAttributeTypeMap(): Attribute[] };

function modelNamed(name: string): Model | undefined {
  const candidate = (k8s as unknown as Record<string, unknown>)[name];
  return typeof candidate === 'function' && 'getAttributeTypeMap' in candidate ? (candidate as unknown as Model) : undefined;
}

/** A maximal JSON object of a client-node model; throws for a model name that does not exist. */
export function maximalObject(modelName: string): JsonObject {
  const model = modelNamed(modelName);
  if (!model) throw new Error(`no client-node model ${modelName}`);
  const counter = { n: 0 };
  return objectOf(model, counter, [modelName]);
}

function objectOf(model: Model, counter: { n: number }, path: string[]): JsonObject {
  const out: JsonObject = {};
  const attributes = model.getAttributeTypeMap();
  // A whole object (one with ObjectMeta) carries kind and apiVersion in its envelope, not in its
  // message: at the top they come back from the envelope; an embedded one (a StatefulSet's
  // volumeClaimTemplates) has no envelope, and Kubernetes' protobuf drops them there too.
  const wholeObject = attributes.some((a) => a.baseName === 'metadata' && a.type === 'V1ObjectMeta');
  for (const attribute of attributes) {
    if (wholeObject && (attribute.baseName === 'kind' || attribute.baseName === 'apiVersion')) continue;
    const value = valueOf(attribute.type, attribute.format, attribute.baseName, counter, path);
    if (value !== undefined) out[attribute.baseName] = value;
  }
  return out;
}

const TIME = '2026-11-23T10:20:30Z';
const MICRO_TIME = '2026-11-23T10:20:30.123456Z';

function valueOf(type: string, format: string, name: string, counter: { n: number }, path: string[]): unknown {
  counter.n += 1;
  const n = counter.n;
  // Lists and maps first: their format is their items' format.
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    const item = valueOf(array[1]!, format, name, counter, path);
    return item === undefined ? undefined : [item];
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    const entry = valueOf(map[1]!, format, name, counter, path);
    return entry === undefined ? undefined : { [`${name}-key`]: entry };
  }
  if (format === 'date-time-micro') return MICRO_TIME;
  if (format === 'date-time' || type === 'Date') return TIME;
  if (format === 'int-or-string' || type === 'IntOrString') return n % 2 === 0 ? n : `${n}%`;
  if (format === 'byte') return Buffer.from(`bytes of ${name}`).toString('base64');
  switch (type) {
    case 'string':
      return `${name}-${n}`;
    case 'number':
      return format === 'double' ? n + 0.5 : n;
    case 'boolean':
      return true;
    case 'any':
    case 'object':
      return { free: ['form', n, { json: true }] };
  }
  const model = modelNamed(type);
  if (!model) throw new Error(`${path.join('.')}.${name}: unknown client-node type ${type}`);
  // Recursive models (none among the built-in kinds today) stop after a few levels.
  if (path.length > 16 || path.filter((p) => p === type).length > 1) return undefined;
  return objectOf(model, counter, [...path, type]);
}
