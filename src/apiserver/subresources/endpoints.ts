import { methodNotAllowed, type ResourceRegistry, type ResourceType } from '../../api/index.js';
import type { Handler } from '../request/index.js';
import { patch } from '../handlers/patch.js';
import { getObject } from '../handlers/read.js';
import type { RequestInfo } from '../request-info.js';
import { pathNotFound } from '../status.js';
import { bindPod } from './binding.js';
import { evictPod } from './eviction.js';
import { updateThroughSubresource } from './field-writes.js';
import { serveThroughNodeAgent } from './node-agent.js';
import { getScale, patchScale, updateScale } from './scale.js';

type Verb = RequestInfo['verb'];

/** One subresource: its handler per verb, and the kind it speaks (for discovery). */
export interface SubresourceEndpoint {
  readonly handlers: Partial<Record<Verb, Handler>>;
  /** The kind of its request and response bodies; group and version when not the parent's. */
  readonly kind: (type: ResourceType) => { readonly kind: string; readonly group?: string; readonly version?: string };
  /** The resources it is served on (any type that lists it when absent). */
  readonly only?: readonly string[];
}

const parentKind = (type: ResourceType) => ({ kind: type.kind });

/** A part of the object written through its own endpoint: read is the object, writes take the part (write-scope.ts). */
const fieldEndpoint: SubresourceEndpoint = {
  handlers: { get: getObject, update: updateThroughSubresource, patch },
  kind: parentKind,
};

const nodeAgent = (kinds: Readonly<Record<string, string>>, verbs: readonly Verb[]): SubresourceEndpoint => ({
  handlers: Object.fromEntries(verbs.map((verb) => [verb, serveThroughNodeAgent])),
  kind: (type) => ({ kind: kinds[type.resource] ?? type.kind }),
  only: Object.keys(kinds),
});

const PROXY_VERBS: readonly Verb[] = ['create', 'delete', 'get', 'patch', 'update'];
const STREAM_VERBS: readonly Verb[] = ['create', 'get'];

/** Every subresource svc serves, by name. A type gets one by listing it in `subresources`. */
export const SUBRESOURCES: Readonly<Record<string, SubresourceEndpoint>> = {
  status: fieldEndpoint,
  finalize: { handlers: { update: updateThroughSubresource }, kind: parentKind, only: ['namespaces'] },
  ephemeralcontainers: { ...fieldEndpoint, only: ['pods'] },
  approval: { ...fieldEndpoint, only: ['certificatesigningrequests'] },
  scale: { handlers: { get: getScale, update: updateScale, patch: patchScale }, kind: () => ({ kind: 'Scale', group: 'autoscaling', version: 'v1' }) },
  binding: { handlers: { create: bindPod }, kind: () => ({ kind: 'Binding' }), only: ['pods'] },
  eviction: { handlers: { create: evictPod }, kind: () => ({ kind: 'Eviction', group: 'policy', version: 'v1' }), only: ['pods'] },
  log: nodeAgent({ pods: 'Pod' }, ['get']),
  exec: nodeAgent({ pods: 'PodExecOptions' }, STREAM_VERBS),
  attach: nodeAgent({ pods: 'PodAttachOptions' }, STREAM_VERBS),
  portforward: nodeAgent({ pods: 'PodPortForwardOptions' }, STREAM_VERBS),
  proxy: nodeAgent({ pods: 'PodProxyOptions', nodes: 'NodeProxyOptions', services: 'ServiceProxyOptions' }, PROXY_VERBS),
};

/** The endpoint of `name` on `type`, if the type has it and svc serves it. */
export function endpointOf(type: ResourceType, name: string): SubresourceEndpoint | undefined {
  if (!type.subresources.includes(name) || !Object.hasOwn(SUBRESOURCES, name)) return undefined;
  const endpoint = SUBRESOURCES[name]!;
  return endpoint.only && !endpoint.only.includes(type.resource) ? undefined : endpoint;
}

/** The handler of a subresource request: 404 for a subresource the type lacks, 405 for a verb it does not serve. */
export function subresourceHandler(type: ResourceType, info: RequestInfo): Handler {
  const endpoint = endpointOf(type, info.subresource!);
  if (!endpoint) throw pathNotFound();
  const handler = endpoint.handlers[info.verb];
  if (!handler) throw methodNotAllowed(info.verb, `${type.resource}/${info.subresource}`);
  return handler;
}

/**
 * Resources that are operations on another type rather than objects: `bindings` (POST a Binding
 * to a namespace — the legacy form of `pods/<name>/binding`) acts on pods.
 */
export function virtualEndpoint(registry: ResourceRegistry, info: RequestInfo): { type: ResourceType; handler: Handler } | undefined {
  if (info.group !== '' || info.version !== 'v1' || info.resource !== 'bindings') return undefined;
  const pods = registry.lookup('', 'v1', 'pods');
  if (!pods || info.namespace === undefined || info.subresource !== undefined) return undefined;
  if (info.verb !== 'create' || info.name !== undefined) throw methodNotAllowed(info.verb, 'bindings');
  return { type: pods, handler: bindPod };
}

/** The virtual resources discovery lists with a group version's types. */
export function virtualResources(group: string, version: string, registry: ResourceRegistry) {
  if (group !== '' || version !== 'v1' || !registry.lookup('', 'v1', 'pods')) return [];
  return [{ name: 'bindings', singularName: 'binding', namespaced: true, kind: 'Binding', verbs: ['create'] }];
}

/** Discovery's entries for a type's subresources (`pods/status`, `deployments/scale`), as Kubernetes lists them. */
export function subresourceEntries(type: ResourceType) {
  return [...type.subresources]
    .sort()
    .flatMap((name) => {
      const endpoint = endpointOf(type, name);
      if (!endpoint) return [];
      const { kind, group, version } = endpoint.kind(type);
      return [
        {
          name: `${type.resource}/${name}`,
          singularName: '',
          namespaced: type.namespaced,
          ...(group !== undefined ? { group, version } : {}),
          kind,
          verbs: Object.keys(endpoint.handlers).sort(),
        },
      ];
    });
}
