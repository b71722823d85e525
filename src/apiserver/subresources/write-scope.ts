import { podQosClass, type ResourceType } from '../../api/index.js';
import { isBuiltin } from '../request/index.js';
import type { RequestInfo } from '../request-info.js';
import type { ApiObject } from '../api-object.js';

/**
 * Which parts of an object a write may change, by the endpoint it came through — Kubernetes'
 * status/spec split (its strategies' PrepareForUpdate and reset fields):
 *
 * | endpoint | writes | keeps from the stored object |
 * | --- | --- | --- |
 * | the object, on a type with `status` | everything else | `status` (and a namespace's `spec.finalizers`) |
 * | `/status` | `status`; built-in kinds also `metadata.labels` and `.annotations` | the rest |
 * | `/finalize` (namespaces) | `spec.finalizers` | the rest |
 * | `/ephemeralcontainers` (pods) | `spec.ephemeralContainers` | the rest |
 * | `/approval` (certificatesigningrequests) | `status.conditions` | the rest |
 *
 * Custom types take nothing but `status` through `/status`, as Kubernetes serves them.
 */

type Scope = Pick<RequestInfo, 'subresource'>;
interface WriteContext {
  readonly type: ResourceType;
  readonly info: Scope;
}

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;

/** `object` with the value at `path` replaced by `value` (removed when undefined); copies only along the path. */
export function withValueAt(object: Json, path: readonly string[], value: unknown): Json {
  const [head, ...rest] = path;
  if (head === undefined) return object;
  const out = { ...object };
  if (rest.length === 0) {
    if (value === undefined) delete out[head];
    else out[head] = value;
    return out;
  }
  const child = asObject(object[head]);
  if (!child && value === undefined) return out;
  out[head] = withValueAt(child ?? {}, rest, value);
  return out;
}

export function valueAt(object: unknown, path: readonly string[]): unknown {
  let current: unknown = object;
  for (const key of path) current = asObject(current)?.[key];
  return current;
}

/** The paths a field subresource owns; the object endpoint may not change them. */
const FIELD_SUBRESOURCES: Readonly<Record<string, readonly (readonly string[])[]>> = {
  finalize: [['spec', 'finalizers']],
  ephemeralcontainers: [['spec', 'ephemeralContainers']],
  approval: [['status', 'conditions']],
};

const hasStatus = (type: ResourceType) => type.subresources.includes('status');

/** A write through `/status` of a type that has it: it may change the status (and, built-in, labels and annotations) only. */
export const isStatusWrite = (ctx: WriteContext): boolean => ctx.info.subresource === 'status' && hasStatus(ctx.type);
const isNamespaces = (type: ResourceType) => type.group === '' && type.resource === 'namespaces';

/** The object a write through `ctx`'s endpoint stores: `next` where the endpoint writes, `current` elsewhere. */
export function splitWrite<T extends ApiObject>(ctx: WriteContext, next: T, current: ApiObject): T {
  const { type, info } = ctx;
  const sub = info.subresource;
  if (sub === undefined) {
    let out: Json = next;
    if (hasStatus(type)) out = withValueAt(out, ['status'], current['status']);
    if (isNamespaces(type) && type.subresources.includes('finalize')) out = withValueAt(out, ['spec', 'finalizers'], valueAt(current, ['spec', 'finalizers']));
    return out as T;
  }
  if (sub === 'status' && hasStatus(type)) {
    let out: Json = withValueAt(current, ['status'], next['status']);
    out = { ...out, metadata: metadataThroughStatus(type, next, current) };
    return out as T;
  }
  const paths = FIELD_SUBRESOURCES[sub];
  if (paths && type.subresources.includes(sub)) {
    let out: Json = { ...current, metadata: { ...current.metadata, managedFields: next.metadata.managedFields ?? current.metadata.managedFields } };
    for (const path of paths) out = withValueAt(out, path, valueAt(next, path));
    return out as T;
  }
  // scale and the rest build their object from the stored one themselves.
  return next;
}

/**
 * The metadata a status write keeps: the stored one, with the managedFields the write computed
 * (apply records its own), and for built-in kinds the labels and annotations it sent.
 */
function metadataThroughStatus(type: ResourceType, next: ApiObject, current: ApiObject): ApiObject['metadata'] {
  const meta = { ...current.metadata };
  if (next.metadata.managedFields !== undefined) meta.managedFields = next.metadata.managedFields;
  if (isBuiltin(type)) {
    for (const key of ['labels', 'annotations'] as const) {
      if (next.metadata[key] === undefined) delete meta[key];
      else meta[key] = next.metadata[key];
    }
  }
  return meta;
}

/**
 * The part of an apply configuration the endpoint writes, so that a manager owns only what it
 * can change (Kubernetes strips the reset fields before it merges).
 */
export function writableThrough<T extends ApiObject>(ctx: WriteContext, config: T): T {
  const { apiVersion, kind, metadata } = config;
  const identity = { metadata: { name: metadata.name, ...(metadata.namespace ? { namespace: metadata.namespace } : {}) } } as ApiObject;
  const skeleton: ApiObject = { ...(apiVersion ? { apiVersion } : {}), ...(kind ? { kind } : {}), ...identity };
  const split = splitWrite(ctx, config, skeleton);
  return (ctx.info.subresource === 'status' && !isBuiltin(ctx.type) ? { ...split, metadata: skeleton.metadata } : split) as T;
}

/**
 * What a new object's status starts as: status is the controllers' to write, so a create drops
 * it on the types that have a status subresource — except a Node (its agent registers with its
 * status) and a Namespace (Active, set by prepareNamespace); a Pod starts Pending with its QoS class.
 */
export function statusOnCreate(type: ResourceType, object: ApiObject): ApiObject {
  if (!hasStatus(type)) return object;
  if (type.group === '' && (type.resource === 'nodes' || type.resource === 'namespaces')) return object;
  if (type.group === '' && type.resource === 'pods') return { ...object, status: { phase: 'Pending', qosClass: podQosClass(object['spec']) } };
  const { status: _dropped, ...rest } = object;
  return rest as ApiObject;
}
