import { randomUUID } from 'node:crypto';
import { objectMetaSchema, qualifiedResource, storageReadError, rfc3339, type ObjectMeta, type ResourceType, type StatusError } from '../api/index.js';
import { isStorageError, type KeyValue, type Store } from '../storage/index.js';
import { jsonEqual } from './writes/json-value.js';
import { MAX_OBJECT_BYTES, objectTooLarge } from '../encoding/index.js';

/** An API object as the server handles it: typed metadata, everything else as the client sent it. */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** `apiVersion` of a type on the wire: `v1` for the core group, `<group>/<version>` otherwise. */
export const apiVersionOf = (type: Pick<ResourceType, 'group' | 'version'>) =>
  type.group === '' ? type.version : `${type.group}/${type.version}`;

/**
 * Where a type's objects live, under the store's prefix (`/registry/` unless `--etcd-prefix` says
 * otherwise): `<prefix><group or core>/<resource>/[<namespace>/]<name>`.
 */
export function collectionPrefix(store: Pick<Store, 'prefix'>, type: ResourceType, namespace?: string): string {
  const base = `${store.prefix}${type.group || 'core'}/${type.resource}/`;
  return type.namespaced && namespace !== undefined ? `${base}${namespace}/` : base;
}

export function objectKey(store: Pick<Store, 'prefix'>, type: ResourceType, namespace: string | undefined, name: string): string {
  return `${collectionPrefix(store, type, type.namespaced ? namespace : undefined)}${name}`;
}

/**
 * Stored bytes carry no resourceVersion: the store's modRevision is the version, set on the
 * way out, so an object never disagrees with the revision that wrote it.
 */
// ObjectMeta's fields in the schema's order: the order every write path stores them in.
const META_KEYS: readonly string[] = Object.keys(objectMetaSchema.shape).filter((key) => key !== 'resourceVersion');
const META_KEY_SET = new Set<string>([...META_KEYS, 'resourceVersion']);

/**
 * The metadata as stored: without resourceVersion, its keys in one order whatever path built it
 * (a create adds uid and timestamps last, the schema puts them first), so that the same object
 * always encodes to the same bytes and a write can find that it changes nothing by comparing them.
 */
function storedMetadata(meta: ObjectMeta): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const source = meta as Record<string, unknown>;
  for (const key of META_KEYS) if (source[key] !== undefined) out[key] = source[key];
  for (const key in source) if (!META_KEY_SET.has(key) && source[key] !== undefined) out[key] = source[key];
  return out;
}

export function encodeForStorage(object: ApiObject, type?: Pick<ResourceType, 'group' | 'version' | 'storageVersion'>): Uint8Array {
  const metadata = storedMetadata(object.metadata);
  const { kind, apiVersion: sent, metadata: _meta, ...rest } = object;
  // A type served in several versions stores one of them (conversion None: only apiVersion differs).
  const apiVersion = type?.storageVersion !== undefined ? apiVersionOf({ group: type.group, version: type.storageVersion }) : sent;
  // kind, apiVersion, metadata lead, always: `spliceResourceVersion` relies on where metadata starts.
  const bytes = encoder.encode(JSON.stringify({ kind, apiVersion, metadata, ...rest }));
  // Every backend refuses what etcd would: one object of many megabytes would slow every list,
  // watch and relist that carries it.
  if (bytes.length > MAX_OBJECT_BYTES) throw objectTooLarge(bytes.length);
  return bytes;
}

// The bytes each decoded object came from, for as long as the object lives: a write compares its
// new bytes with them to find that it changes nothing, without encoding the stored object again.
const storedBytes = new WeakMap<ApiObject, Uint8Array>();

export function decodeStored(kv: KeyValue, type?: Pick<ResourceType, 'group' | 'version' | 'storageVersion'>): ApiObject {
  let object: ApiObject;
  try {
    object = JSON.parse(decoder.decode(kv.value)) as ApiObject;
  } catch (error) {
    throw storageReadError(`the object stored at ${kv.key} cannot be decoded: ${String(error)}`);
  }
  object.metadata = { ...object.metadata, resourceVersion: String(kv.modRevision) };
  if (type?.storageVersion !== undefined) object.apiVersion = apiVersionOf(type);
  storedBytes.set(object, kv.value);
  return object;
}

/** The stored bytes `object` was decoded from (`decodeStored`); undefined for any other object. */
export function storedBytesOf(object: ApiObject): Uint8Array | undefined {
  return storedBytes.get(object);
}

/** The fields the server owns on create: a fresh uid, the creation time, no version yet. */
export function prepareForCreate(object: ApiObject, now = new Date(), uid: string = randomUUID()): ApiObject {
  const { resourceVersion: _rv, deletionTimestamp: _dt, deletionGracePeriodSeconds: _dg, ...metadata } = object.metadata;
  return {
    ...object,
    metadata: {
      ...metadata,
      uid,
      creationTimestamp: rfc3339(now),
      generation: 1,
    },
  };
}

/**
 * The fields an update may not change (uid, creation time, deletion state) come from the stored
 * object; `generation` moves when anything outside metadata and status changes.
 */
export function prepareForUpdate(next: ApiObject, current: ApiObject): ApiObject {
  const { metadata: nextMeta, status: _nextStatus, ...nextRest } = next;
  const { metadata: curMeta, status: _curStatus, ...curRest } = current;
  // Compared as values: the schema's output and the stored bytes order their keys differently.
  const specChanged = !jsonEqual(nextRest, curRest);
  const generation = (curMeta.generation ?? 1) + (specChanged ? 1 : 0);
  const metadata: ObjectMeta = {
    ...nextMeta,
    uid: curMeta.uid,
    creationTimestamp: curMeta.creationTimestamp,
    generation,
  };
  if (curMeta.deletionTimestamp) metadata.deletionTimestamp = curMeta.deletionTimestamp;
  else delete metadata.deletionTimestamp;
  if (curMeta.deletionGracePeriodSeconds !== undefined) metadata.deletionGracePeriodSeconds = curMeta.deletionGracePeriodSeconds;
  else delete metadata.deletionGracePeriodSeconds;
  return { ...next, metadata };
}

/** Deep equality of two JSON values, whatever the order of their keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, i) => sameJson(item, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** The 500 for an object storage holds but cannot decode, naming it and the way out. */
export function corruptObject(type: ResourceType, namespace: string | undefined, name: string, cause: unknown): StatusError {
  const where = type.namespaced && namespace ? ` in namespace ${JSON.stringify(namespace)}` : '';
  const gr = { group: type.group, resource: type.resource };
  return storageReadError(
    `${qualifiedResource(gr)} ${JSON.stringify(name)}${where} is corrupt in storage and cannot be read (${cause instanceof Error ? cause.message : String(cause)}); ` +
      'it can only be deleted, with ignoreStoreReadErrorWithClusterBreakingPotential=true under the AllowUnsafeMalformedObjectDeletion feature gate',
    gr,
    name,
  );
}

/** Reads a type's objects from the store, decoded and versioned. */
export class ObjectReader {
  constructor(private readonly store: Store) {}

  async get(type: ResourceType, namespace: string | undefined, name: string): Promise<ApiObject | undefined> {
    let kv: KeyValue | undefined;
    try {
      kv = await this.store.get(objectKey(this.store, type, namespace, name));
    } catch (error) {
      throw isStorageError(error, 'Corrupt') ? corruptObject(type, namespace, name, error) : error;
    }
    if (!kv) return undefined;
    try {
      return decodeStored(kv, type);
    } catch (error) {
      throw corruptObject(type, namespace, name, error);
    }
  }

  async list(type: ResourceType, namespace: string | undefined): Promise<{ items: ApiObject[]; revision: number }> {
    const { items, revision } = await this.store.list(collectionPrefix(this.store, type, namespace));
    return { items: items.map((kv) => decodeStored(kv, type)), revision };
  }
}
