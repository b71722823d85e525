import { objectMetaSchema, storageReadError, type ObjectMeta, type ResourceType } from '../api/index.js';
import type { KeyValue } from '../storage/index.js';
import { MAX_OBJECT_BYTES, objectTooLarge } from '../encoding/index.js';
import { apiVersionOf, type ApiObject } from './api-object.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

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

/** `remember`: the bytes are a write's to a cached type (see `storageBytes`). */
export function encodeForStorage(object: ApiObject, type?: Pick<ResourceType, 'group' | 'version' | 'storageVersion' | 'conversion'>, remember = false): Uint8Array {
  const stored = storedObject(object, type);
  return storageBytes(JSON.stringify(stored), remember ? object : undefined, stored);
}

/**
 * The JSON text `encodeForStorage` stores. A create keeps it to answer with (the stored text with
 * the version spliced in: `spliceResourceVersion`) instead of encoding the object a second time.
 */
export function storageText(served: ApiObject, type?: Pick<ResourceType, 'group' | 'version' | 'storageVersion' | 'conversion'>): string {
  return JSON.stringify(storedObject(served, type));
}

/** The object `storageText` encodes: what a parse of the stored text gives back. */
export function storedObject(served: ApiObject, type?: Pick<ResourceType, 'group' | 'version' | 'storageVersion' | 'conversion'>): ApiObject {
  // A version whose objects differ from the stored ones is converted (the other fields are kept as sent).
  const object = type?.conversion ? (type.conversion.toStorage(served) as ApiObject) : served;
  const metadata = storedMetadata(object.metadata);
  const { kind, apiVersion: sent, metadata: _meta, ...rest } = object;
  // A type served in several versions stores one of them (conversion None: only apiVersion differs).
  const apiVersion = type?.storageVersion !== undefined ? apiVersionOf({ group: type.group, version: type.storageVersion }) : sent;
  // kind, apiVersion, metadata lead, always: `spliceResourceVersion` relies on where metadata starts.
  return { kind, apiVersion, metadata, ...rest } as ApiObject;
}

/**
 * The bytes of a `storageText`, refused when larger than any backend takes. With `object` (the
 * object the text encodes), the bytes remember it until this server's watch cache takes the write's
 * event (`takeEncodedSource`), so the cache need not parse the bytes the writer has just encoded.
 */
export function storageBytes(text: string, object?: ApiObject, stored?: ApiObject): Uint8Array {
  const bytes = encoder.encode(text);
  // Every backend refuses what etcd would: one object of many megabytes would slow every list,
  // watch and relist that carries it.
  if (bytes.length > MAX_OBJECT_BYTES) throw objectTooLarge(bytes.length);
  // The served fields are set later, by the cache: present from the start, the shape stays one.
  if (object) encodedSources.set(bytes, { object, text, stored, servedRevision: undefined, servedText: undefined });
  return bytes;
}

/** What a write encoded, by the very bytes it handed the store (in-process stores pass them on in their events). */
export interface EncodedSource {
  readonly object: ApiObject;
  readonly text: string;
  /**
   * `storedObject(object)`, the object `text` encodes, when the writer made it (`encodeForStorage`):
   * the version's protobuf message is encoded from it without making it again.
   */
  readonly stored?: ApiObject | undefined;
  /**
   * Set by this server's watch cache when it takes the bytes (`servedObjectDecoder`): the served
   * text it made of them (the text with `servedRevision` spliced in), the key of its protobuf bytes
   * in `ServedTexts`. The write's answer is that very string, not a second splice of `text`.
   */
  servedRevision?: number | undefined;
  servedText?: string | undefined;
}
// Weak: bytes of a write that failed take their entry with them; taken entries are deleted, so a
// store that keeps the bytes (the memory store) does not keep the object too.
const encodedSources = new WeakMap<Uint8Array, EncodedSource>();

/** The text `bytes` were encoded from by `storageBytes` with an object, while the cache has not taken it. */
export const encodedTextOf = (bytes: Uint8Array): string | undefined => encodedSources.get(bytes)?.text;

/** What `bytes` were encoded from by `storageBytes` with an object, while the cache has not taken it (a writer keeps it past that). */
export const encodedSourceOf = (bytes: Uint8Array): EncodedSource | undefined => encodedSources.get(bytes);

/** The object and text `bytes` were encoded from by this process's write path, once; undefined for any other bytes. */
export function takeEncodedSource(bytes: Uint8Array): EncodedSource | undefined {
  const source = encodedSources.get(bytes);
  if (source) encodedSources.delete(bytes);
  return source;
}

// The bytes each decoded object came from, for as long as the object lives: a write compares its
// new bytes with them to find that it changes nothing, without encoding the stored object again.
const storedBytes = new WeakMap<ApiObject, Uint8Array>();

export function decodeStored(kv: KeyValue, type?: Pick<ResourceType, 'group' | 'version' | 'storageVersion' | 'conversion'>): ApiObject {
  let object: ApiObject;
  try {
    object = JSON.parse(decoder.decode(kv.value)) as ApiObject;
  } catch (error) {
    throw storageReadError(`the object stored at ${kv.key} cannot be decoded: ${String(error)}`);
  }
  object.metadata = { ...object.metadata, resourceVersion: String(kv.modRevision) };
  if (type?.conversion) object = type.conversion.fromStorage(object) as ApiObject;
  if (type?.storageVersion !== undefined) object.apiVersion = apiVersionOf(type);
  storedBytes.set(object, kv.value);
  return object;
}

/** `object` is what `bytes`, as stored, decode to (a write's result, kept as the next write's start). */
export function keepStoredBytes(object: ApiObject, bytes: Uint8Array): void {
  storedBytes.set(object, bytes);
}

/** The stored bytes `object` was decoded from (`decodeStored`, `keepStoredBytes`); undefined for any other object. */
export function storedBytesOf(object: ApiObject): Uint8Array | undefined {
  return storedBytes.get(object);
}

/**
 * The object as a read of it will answer: for a version whose objects are converted (autoscaling/v1
 * HPAs), to the stored form and back, so a write's response shows what was stored (a dropped
 * annotation, a defaulted target), as upstream's round trip through its internal version does.
 */
export function asServed(object: ApiObject, type: Pick<ResourceType, 'group' | 'version' | 'conversion'>): ApiObject {
  if (!type.conversion) return object;
  const converted = type.conversion.fromStorage(type.conversion.toStorage(object)) as ApiObject;
  return { ...converted, apiVersion: apiVersionOf(type) };
}
