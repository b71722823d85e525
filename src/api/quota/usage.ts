import { upstreamGroupAlias } from '../groups.js';
import type { KubeObject } from '../meta.js';
import { milliQuantity } from '../../browser-safe/index.js';

/**
 * What one object counts against a ResourceQuota, by quota resource name, in milli-units. The one
 * evaluator of svc: the API server's ResourceQuota admission charges with it and the controller
 * manager's resourcequota loop recounts with it, so the two agree (as Kubernetes' quota evaluators
 * are shared by its admission plugin and its controller).
 */
export type Usage = Map<string, number>;

/** The type of an object, as the evaluator needs it: `''` is the core group. */
export interface CountedType {
  readonly group: string;
  readonly resource: string;
}

type Resources = Record<string, unknown>;
type Container = { name?: string; resources?: { requests?: Resources; limits?: Resources } };
type PodSpec = { containers?: Container[]; initContainers?: Container[]; overhead?: Resources };

/** The legacy names Kubernetes counts core objects under, beside `count/<resource>`. */
export const OBJECT_COUNT_NAMES: ReadonlySet<string> = new Set(['pods', 'services', 'configmaps', 'secrets', 'persistentvolumeclaims', 'replicationcontrollers', 'resourcequotas']);

/** The compute resources Kubernetes quotas under both `requests.<name>` and `<name>`, and `limits.<name>`. */
const STANDARD_COMPUTE = ['cpu', 'memory', 'ephemeral-storage'] as const;
const HUGEPAGES = 'hugepages-';
/** Where the storage class of a claim is quota'd: `<class>.storageclass.storage.k8s.io/<resource>`. */
export const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';
const STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

const ONE = 1000;

/** `count/pods`, `count/deployments.apps`: the generic object-count name of a type. */
export const countName = (type: CountedType) => `count/${type.resource}${type.group ? `.${type.group}` : ''}`;

/**
 * The name svc computes usage under for a quota resource name a user wrote: an upstream group in
 * `count/<resource>.<group>` (`roles.rbac.authorization.k8s.io`) is svc's (`.svc.io`), and a
 * storage class written with svc's storage group is the upstream one, where claims are counted.
 */
export function canonicalQuotaName(name: string): string {
  if (name.startsWith('count/')) {
    const [resource, ...group] = name.slice('count/'.length).split('.');
    return group.length === 0 ? name : `count/${resource}.${upstreamGroupAlias(group.join('.'))}`;
  }
  return name.replace('.storageclass.storage.svc.io/', STORAGE_CLASS_SUFFIX);
}

function add(usage: Usage, name: string, milli: number): void {
  usage.set(name, (usage.get(name) ?? 0) + milli);
}

/**
 * A pod's effective amount of one resource: the larger of its containers' sum and its largest init
 * container, plus the pod's overhead. A container's request defaults to its limit (as the API's
 * defaulting does).
 */
function podAmount(spec: PodSpec, field: 'requests' | 'limits', resource: string): number {
  const amount = (c: Container) => milliQuantity(c.resources?.[field]?.[resource] ?? (field === 'requests' ? c.resources?.limits?.[resource] : undefined)) ?? 0;
  const sum = (spec.containers ?? []).reduce((total, c) => total + amount(c), 0);
  const init = Math.max(0, ...(spec.initContainers ?? []).map(amount));
  const used = Math.max(sum, init);
  // The overhead is always requested; it is added to a limit only where the containers set one.
  return field === 'requests' || used > 0 ? used + (milliQuantity(spec.overhead?.[resource]) ?? 0) : 0;
}

/** The resource names any container of the pod requests (requests, or limits that default them). */
function requestedNames(spec: PodSpec): Set<string> {
  const names = new Set<string>();
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    for (const name of Object.keys(c.resources?.requests ?? {})) names.add(name);
    for (const name of Object.keys(c.resources?.limits ?? {})) names.add(name);
  }
  return names;
}

/** A resource name outside `kubernetes.io` with a domain: a device or other extended resource. */
const isExtended = (name: string) => name.includes('/') && !/(^|\.)kubernetes\.io\//.test(name) && !name.startsWith('requests.');

export interface UsageOptions {
  /** The clock (ms), for pods past their deletion grace period. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * Whether a pod still holds compute quota (Kubernetes' QuotaV1Pod): not when it has finished
 * (Succeeded, Failed), nor once its deletion grace period is over.
 */
export function podHoldsQuota(pod: KubeObject, now: number = Date.now()): boolean {
  const phase = (pod['status'] as { phase?: string } | undefined)?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
  if (deletionTimestamp && deletionGracePeriodSeconds !== undefined) {
    return Date.parse(deletionTimestamp) + deletionGracePeriodSeconds * 1000 >= now;
  }
  return true;
}

/**
 * What one object counts: its object count (`count/<resource>[.<group>]`, and the legacy name of
 * the core types); a pod that still holds quota also `pods` and its compute: `requests.<r>` and
 * `<r>` and `limits.<r>` of cpu, memory and ephemeral-storage, `requests.hugepages-*` and
 * `hugepages-*`, `requests.<extended resource>`; a claim its storage request (`requests.storage`)
 * and, per storage class, `<class>.storageclass.storage.k8s.io/{requests.storage,persistentvolumeclaims}`;
 * a Service `services.loadbalancers` and `services.nodeports`.
 */
export function usageOf(type: CountedType, object: KubeObject, options: UsageOptions = {}): Usage {
  const usage: Usage = new Map();
  add(usage, countName(type), ONE);
  if (type.group !== '') return usage;
  const legacy = OBJECT_COUNT_NAMES.has(type.resource) && type.resource !== 'pods';
  if (legacy) add(usage, type.resource, ONE);
  if (type.resource === 'pods') {
    // `count/pods` counts every stored pod; `pods` and compute only those that hold quota.
    if (!podHoldsQuota(object, (options.now ?? Date.now)())) return usage;
    add(usage, 'pods', ONE);
    const spec = (object['spec'] ?? {}) as PodSpec;
    for (const resource of STANDARD_COMPUTE) {
      const requests = podAmount(spec, 'requests', resource);
      const limits = podAmount(spec, 'limits', resource);
      if (requests) add(usage, `requests.${resource}`, requests), add(usage, resource, requests);
      if (limits) add(usage, `limits.${resource}`, limits);
    }
    for (const resource of requestedNames(spec)) {
      if (resource.startsWith(HUGEPAGES)) {
        const requests = podAmount(spec, 'requests', resource);
        if (requests) add(usage, `requests.${resource}`, requests), add(usage, resource, requests);
      } else if (isExtended(resource)) {
        const requests = podAmount(spec, 'requests', resource);
        if (requests) add(usage, `requests.${resource}`, requests);
      }
    }
  } else if (type.resource === 'persistentvolumeclaims') {
    const spec = object['spec'] as { resources?: { requests?: Resources }; storageClassName?: string } | undefined;
    const allocated = (object['status'] as { allocatedResources?: Resources } | undefined)?.allocatedResources?.['storage'];
    // A claim being expanded holds the larger of what it asks and what it was given.
    const storage = Math.max(milliQuantity(spec?.resources?.requests?.['storage']) ?? 0, milliQuantity(allocated) ?? 0);
    const storageClass = spec?.storageClassName ?? object.metadata.annotations?.[STORAGE_CLASS_ANNOTATION] ?? '';
    if (storage) add(usage, 'requests.storage', storage);
    if (storageClass !== '') {
      add(usage, `${storageClass}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, ONE);
      if (storage) add(usage, `${storageClass}${STORAGE_CLASS_SUFFIX}requests.storage`, storage);
    }
  } else if (type.resource === 'services') {
    const spec = (object['spec'] ?? {}) as { type?: string; ports?: { nodePort?: number }[]; allocateLoadBalancerNodePorts?: boolean };
    const ports = spec.ports ?? [];
    if (spec.type === 'NodePort') add(usage, 'services.nodeports', ONE * ports.length);
    if (spec.type === 'LoadBalancer') {
      add(usage, 'services.loadbalancers', ONE);
      // Without node ports allocated for it, a load balancer holds only those it was given.
      const nodePorts = spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => p.nodePort !== undefined && p.nodePort !== 0).length : ports.length;
      add(usage, 'services.nodeports', ONE * nodePorts);
    }
  }
  return usage;
}

/** The sum of usages. */
export function totalUsage(usages: Iterable<Usage>): Usage {
  const total: Usage = new Map();
  for (const usage of usages) for (const [name, milli] of usage) add(total, name, milli);
  return total;
}

/** Resource names of a pod's compute requests and limits a quota may insist every container sets. */
export const COMPUTE_RESOURCES = ['requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory', 'cpu', 'memory'] as const;

/** Containers of a pod that leave one of the quota's compute resources unset. */
export function missingCompute(object: KubeObject, resource: string): string[] {
  const [field, name] = resource.includes('.') ? (resource.split('.') as ['requests' | 'limits', string]) : (['requests', resource] as const);
  const spec = (object['spec'] ?? {}) as PodSpec;
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])]
    .filter((c) => c.resources?.[field]?.[name] === undefined && (field === 'limits' || c.resources?.limits?.[name] === undefined))
    .map((c) => c.name ?? '');
}

/**
 * The type whose objects a quota resource name counts (its canonical name), or undefined for a
 * name no stored object counts toward.
 */
export function typeCounted(name: string): CountedType | undefined {
  const canonical = canonicalQuotaName(name);
  if (canonical.startsWith('count/')) {
    const [resource, ...group] = canonical.slice('count/'.length).split('.');
    return resource ? { group: group.join('.'), resource } : undefined;
  }
  if (canonical.includes(STORAGE_CLASS_SUFFIX) || canonical === 'requests.storage') return { group: '', resource: 'persistentvolumeclaims' };
  if (canonical.startsWith('services.')) return { group: '', resource: 'services' };
  if (OBJECT_COUNT_NAMES.has(canonical)) return { group: '', resource: canonical };
  const bare = canonical.replace(/^(requests|limits)\./, '');
  if ((STANDARD_COMPUTE as readonly string[]).includes(bare) || bare.startsWith(HUGEPAGES) || (canonical.startsWith('requests.') && bare.includes('/'))) return { group: '', resource: 'pods' };
  return undefined;
}
