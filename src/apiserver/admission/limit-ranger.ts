import { forbidden, formatMilliQuantity, milliQuantity } from '../../api/index.js';
import type { ApiObject } from '../api-object.js';
import type { AdmissionAttributes } from './attributes.js';
import type { AdmissionEnv, AdmissionKind, AdmissionPlugin } from './plugin.js';

type ResourceList = Record<string, string | number>;
interface Requirements {
  requests?: ResourceList;
  limits?: ResourceList;
}
type Container = { name?: string; resources?: Requirements } & Record<string, unknown>;
interface LimitItem {
  type: string;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

const itemsOf = (ranges: readonly ApiObject[], type: string): LimitItem[] =>
  ranges.flatMap((r) => ((r['spec'] as { limits?: LimitItem[] } | undefined)?.limits ?? []).filter((item) => item.type === type));

const milli = (list: ResourceList | undefined, resource: string) => milliQuantity(list?.[resource]);

/**
 * Containers' resources filled in from the LimitRanges' Container defaults: an unset limit takes
 * `default`, an unset request `defaultRequest` (or, failing that, the container's limit, as
 * Kubernetes defaults a request to its limit).
 */
function withDefaults(container: Container, items: readonly LimitItem[]): Container {
  const requests: ResourceList = { ...(container.resources?.requests ?? {}) };
  const limits: ResourceList = { ...(container.resources?.limits ?? {}) };
  let changed = false;
  for (const item of items) {
    for (const [resource, value] of Object.entries(item.default ?? {})) {
      if (limits[resource] === undefined) (limits[resource] = value), (changed = true);
    }
    for (const [resource, value] of Object.entries(item.defaultRequest ?? {})) {
      if (requests[resource] === undefined) (requests[resource] = value), (changed = true);
    }
  }
  for (const [resource, value] of Object.entries(limits)) {
    if (requests[resource] === undefined && items.some((i) => i.default?.[resource] !== undefined)) (requests[resource] = value), (changed = true);
  }
  if (!changed) return container;
  const resources: Requirements = { ...(container.resources ?? {}) };
  if (Object.keys(requests).length) resources.requests = requests;
  if (Object.keys(limits).length) resources.limits = limits;
  return { ...container, resources };
}

/** min / max / maxLimitRequestRatio of one item against one set of requests and limits (kube's messages). */
function check(item: LimitItem, kind: string, requests: ResourceList | undefined, limits: ResourceList | undefined, problems: string[]): void {
  for (const [resource, bound] of Object.entries(item.min ?? {})) {
    const min = milliQuantity(bound)!;
    const request = milli(requests, resource);
    const limit = milli(limits, resource);
    if (request === undefined) problems.push(`minimum ${resource} usage per ${kind} is ${bound}.  No request is specified`);
    else if (request < min) problems.push(`minimum ${resource} usage per ${kind} is ${bound}, but request is ${formatMilliQuantity(request)}`);
    if (limit !== undefined && limit < min) problems.push(`minimum ${resource} usage per ${kind} is ${bound}, but limit is ${formatMilliQuantity(limit)}`);
  }
  for (const [resource, bound] of Object.entries(item.max ?? {})) {
    const max = milliQuantity(bound)!;
    const request = milli(requests, resource);
    const limit = milli(limits, resource);
    // A claim asks for storage with a request alone: its maximum bounds the request.
    if (limit === undefined && kind !== 'PersistentVolumeClaim') problems.push(`maximum ${resource} usage per ${kind} is ${bound}.  No limit is specified`);
    else if (limit !== undefined && limit > max) problems.push(`maximum ${resource} usage per ${kind} is ${bound}, but limit is ${formatMilliQuantity(limit)}`);
    if (request !== undefined && request > max) problems.push(`maximum ${resource} usage per ${kind} is ${bound}, but request is ${formatMilliQuantity(request)}`);
  }
  for (const [resource, bound] of Object.entries(item.maxLimitRequestRatio ?? {})) {
    const ratio = milliQuantity(bound)! / 1000;
    const request = milli(requests, resource);
    const limit = milli(limits, resource);
    if (limit === undefined) problems.push(`${resource} max limit to request ratio per ${kind} is ${bound}, but no limit is specified`);
    else if (request === undefined || request === 0) problems.push(`${resource} max limit to request ratio per ${kind} is ${bound}, but no request is specified or request is 0`);
    else if (limit / request > ratio) problems.push(`${resource} max limit to request ratio per ${kind} is ${bound}, but provided ratio is ${(limit / request).toFixed(6)}`);
  }
}

/** The sum of one field over containers; a resource any container leaves unset is left out (it is unbounded). */
function podTotal(containers: readonly Container[], field: keyof Requirements): ResourceList {
  const resources = new Set(containers.flatMap((c) => Object.keys(c.resources?.[field] ?? {})));
  const total: ResourceList = {};
  for (const resource of resources) {
    const values = containers.map((c) => milli(c.resources?.[field], resource));
    if (values.every((v) => v !== undefined)) total[resource] = formatMilliQuantity(values.reduce((a, b) => a! + b!, 0)!);
  }
  return total;
}

/**
 * LimitRanger: the LimitRanges of the namespace default the resources of a new pod's containers
 * and bound them (type Container: each container; type Pod: the sums), and bound the storage a
 * PersistentVolumeClaim requests (type PersistentVolumeClaim). A violation is 403 Forbidden
 * listing every problem. Pods are checked when created (their resources do not change), claims on
 * create and update.
 */
export function limitRanger(env: AdmissionEnv): AdmissionPlugin {
  const rangeType = env.registry.lookup('', 'v1', 'limitranges')!;
  const appliesTo = ({ operation, type, subresource }: AdmissionKind) =>
    subresource === '' &&
    type.group === '' &&
    ((type.resource === 'pods' && operation === 'CREATE') || (type.resource === 'persistentvolumeclaims' && (operation === 'CREATE' || operation === 'UPDATE')));
  const applies = (attrs: AdmissionAttributes) => attrs.object !== undefined && appliesTo(attrs);
  const rangesOf = (attrs: AdmissionAttributes) => env.objects.list(rangeType, attrs.namespace);

  return {
    name: 'LimitRanger',
    appliesTo,
    admit(attrs) {
      const pod = attrs.object;
      if (!applies(attrs) || attrs.type.resource !== 'pods' || !pod) return pod;
      const items = itemsOf(rangesOf(attrs), 'Container');
      if (items.length === 0) return pod;
      const spec = (pod['spec'] ?? {}) as { containers?: Container[]; initContainers?: Container[] };
      const containers = spec.containers?.map((c) => withDefaults(c, items));
      const initContainers = spec.initContainers?.map((c) => withDefaults(c, items));
      const same = (a?: Container[], b?: Container[]) => (a ?? []).every((c, i) => c === b?.[i]);
      if (same(containers, spec.containers) && same(initContainers, spec.initContainers)) return pod;
      return { ...pod, spec: { ...spec, ...(containers ? { containers } : {}), ...(initContainers ? { initContainers } : {}) } } as ApiObject;
    },
    validate(attrs) {
      if (!applies(attrs)) return;
      const ranges = rangesOf(attrs);
      if (ranges.length === 0) return;
      const object = attrs.object!;
      const problems: string[] = [];
      if (attrs.type.resource === 'pods') {
        const spec = (object['spec'] ?? {}) as { containers?: Container[]; initContainers?: Container[] };
        const all = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
        for (const item of itemsOf(ranges, 'Container')) {
          for (const c of all) check(item, 'Container', c.resources?.requests, c.resources?.limits, problems);
        }
        for (const item of itemsOf(ranges, 'Pod')) check(item, 'Pod', podTotal(all, 'requests'), podTotal(all, 'limits'), problems);
      } else {
        const resources = ((object['spec'] as { resources?: Requirements } | undefined)?.resources ?? {}) as Requirements;
        for (const item of itemsOf(ranges, 'PersistentVolumeClaim')) check(item, 'PersistentVolumeClaim', resources.requests, resources.limits, problems);
      }
      if (problems.length > 0) {
        throw forbidden(
          { group: '', resource: attrs.type.resource },
          attrs.name,
          problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`,
        );
      }
    },
  };
}
