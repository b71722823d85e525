import { milliQuantity, type ResourceType } from '../../api/index.js';
import type { ApiObject } from '../api-object.js';

/** Milli-units by quota resource name. */
export type Usage = Map<string, number>;

type Container = { resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } };

/** The legacy names Kubernetes counts objects under, beside `count/<resource>[.<group>]`. */
const OBJECT_COUNT_NAMES: Readonly<Record<string, string>> = {
  pods: 'pods',
  services: 'services',
  configmaps: 'configmaps',
  secrets: 'secrets',
  persistentvolumeclaims: 'persistentvolumeclaims',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
};

const ONE = 1000;

/** `count/pods`, `count/deployments.apps`: the generic object-count name of a type. */
export const countName = (type: Pick<ResourceType, 'group' | 'resource'>) => `count/${type.resource}${type.group ? `.${type.group}` : ''}`;

function add(usage: Usage, name: string, milli: number): void {
  usage.set(name, (usage.get(name) ?? 0) + milli);
}

/** A pod's effective amount of one resource: the larger of its containers' sum and its largest init container. */
function podAmount(spec: { containers?: Container[]; initContainers?: Container[] }, field: 'requests' | 'limits', resource: string): number {
  const amount = (c: Container) => milliQuantity(c.resources?.[field]?.[resource] ?? (field === 'requests' ? c.resources?.limits?.[resource] : undefined)) ?? 0;
  const sum = (spec.containers ?? []).reduce((total, c) => total + amount(c), 0);
  const init = Math.max(0, ...(spec.initContainers ?? []).map(amount));
  return Math.max(sum, init);
}

/** Whether a pod still holds quota: pods that have finished do not. */
export const isTerminalPod = (pod: ApiObject) => {
  const phase = (pod['status'] as { phase?: string } | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
};

/**
 * What one object counts against a quota: its object counts, and for pods their requests and
 * limits of cpu and memory (`cpu`/`memory` are the requests), for claims their storage request.
 */
export function usageOf(type: ResourceType, object: ApiObject): Usage {
  const usage: Usage = new Map();
  add(usage, countName(type), ONE);
  const legacy = type.group === '' ? OBJECT_COUNT_NAMES[type.resource] : undefined;
  if (legacy) add(usage, legacy, ONE);
  if (type.group !== '') return usage;
  if (type.resource === 'pods') {
    if (isTerminalPod(object)) return new Map();
    const spec = (object['spec'] ?? {}) as { containers?: Container[]; initContainers?: Container[] };
    for (const resource of ['cpu', 'memory', 'ephemeral-storage']) {
      const requests = podAmount(spec, 'requests', resource);
      const limits = podAmount(spec, 'limits', resource);
      if (requests) add(usage, `requests.${resource}`, requests), add(usage, resource, requests);
      if (limits) add(usage, `limits.${resource}`, limits);
    }
  } else if (type.resource === 'persistentvolumeclaims') {
    const storage = milliQuantity((object['spec'] as { resources?: { requests?: { storage?: unknown } } } | undefined)?.resources?.requests?.storage);
    if (storage) add(usage, 'requests.storage', storage);
  } else if (type.resource === 'services') {
    const serviceType = (object['spec'] as { type?: string } | undefined)?.type;
    if (serviceType === 'LoadBalancer') add(usage, 'services.loadbalancers', ONE);
    if (serviceType === 'NodePort' || serviceType === 'LoadBalancer') {
      add(usage, 'services.nodeports', ONE * ((object['spec'] as { ports?: unknown[] }).ports?.length ?? 0));
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
export function missingCompute(object: ApiObject, resource: string): string[] {
  const [field, name] = resource.includes('.') ? (resource.split('.') as ['requests' | 'limits', string]) : (['requests', resource] as const);
  const spec = (object['spec'] ?? {}) as { containers?: (Container & { name?: string })[]; initContainers?: (Container & { name?: string })[] };
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])]
    .filter((c) => c.resources?.[field]?.[name] === undefined && (field === 'limits' || c.resources?.limits?.[name] === undefined))
    .map((c) => c.name ?? '');
}
