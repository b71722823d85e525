import { storageReadError, type Labels, type ResourceType } from '../api/index.js';
import type { KeyValue } from '../storage/index.js';
import { apiVersionOf, type ApiObject } from './api-object.js';
import { StringPool, ValuePool } from './value-pool.js';
import { storedObject, takeEncodedSource, type EncodedSource } from './storage-codec.js';
import { knownObjectOf } from '../encoding/index.js';
import type { ServedTexts } from './served-texts.js';

/**
 * One object version as the read path holds it: its response bytes (the stored JSON with
 * `metadata.resourceVersion` in place) and just enough of it to answer selectors. Keeping the
 * decoded tree instead would cost several times the JSON in memory for every cached object.
 */
export interface ServedObject {
  /** The object's JSON as every GET, list and watch sends it. */
  readonly json: Buffer;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Labels;
  /** The type's selectable fields, in the order of `ResourceType.fieldSelectors`. */
  readonly fields: readonly string[];
}

const LEAD = '{"kind":';
const METADATA = '"metadata":{';
const RV = '"resourceVersion":"';

/**
 * The stored JSON with `metadata.resourceVersion` set to `revision`, without parsing and
 * re-encoding it. Stored values lead with kind, apiVersion and metadata (`encodeForStorage`),
 * and an unescaped `"metadata":{` cannot occur inside the two strings before it, so its first
 * occurrence is the object's metadata. A value that already carries a resourceVersion there (the
 * last state of a deleted object, re-stamped) has it replaced. Undefined for any other shape.
 */
export function spliceResourceVersion(text: string, revision: number): string | undefined {
  const at = text.startsWith(LEAD) ? text.indexOf(METADATA) : -1;
  if (at < 0) return undefined;
  const cut = at + METADATA.length;
  const stamp = `${RV}${revision}"`;
  if (text.startsWith(RV, cut)) {
    const end = text.indexOf('"', cut + RV.length);
    return text.slice(0, cut) + stamp + text.slice(end + 1);
  }
  return text.slice(0, cut) + (text[cut] === '}' ? stamp : `${stamp},`) + text.slice(cut);
}

/**
 * A write's answer text: the served text this server's watch cache made of the write's bytes at
 * `revision` when it has taken them already (an in-process store publishes before it answers), or
 * the stored text with the version spliced in, as the cache makes it.
 */
export function answerTextFor(source: EncodedSource, revision: number): string | undefined {
  return source.servedRevision === revision && source.servedText !== undefined ? source.servedText : spliceResourceVersion(source.text, revision);
}

/**
 * Decodes stored values of one type into ServedObjects. The value is parsed once, for its labels
 * and selectable fields; the bytes sent are the stored ones with the version spliced in.
 * `servedTexts`: the server's table of the versions it wrote (its `ResourceCaches`'), where each
 * one decoded is noted; a decoder without one notes nothing.
 */
export function servedObjectDecoder(type: ResourceType, servedTexts?: ServedTexts): (kv: KeyValue, revision: number) => ServedObject {
  const accessors = Object.values(type.fieldSelectors);
  const strings = new StringPool();
  const labelSets = new ValuePool<Labels>();
  const EMPTY: Labels = Object.freeze({});
  return (kv, revision) => {
    // A write of this server: its object and text are at hand, the bytes need no parse.
    // Not for a converted version: the text is the stored version's (the stored version's cache takes it).
    const source = type.conversion ? undefined : takeEncodedSource(kv.value);
    const spliced = source && spliceResourceVersion(source.text, revision);
    if (source && spliced !== undefined) {
      const meta = source.object.metadata;
      const json = ownBytes(spliced);
      servedTexts?.remember(spliced, json);
      // The writer answers with this very string (answerTextFor): its lookup in servedTexts finds
      // the key by identity, with its hash made already.
      source.servedRevision = revision;
      source.servedText = spliced;
      // The version's protobuf message (a watch event's, a moment from now) is encoded from the
      // writer's object, not a parse of `json`. That object as stored, its version set, is made
      // only when a protobuf reader asks for the message: most versions never get one (no
      // protobuf watcher of the type), and every version is decoded here. The writer never
      // changes an object it stored (a write's result is a new object), so making it later
      // gives what it would have given now.
      // The closure holds one object either way: the writer's stored form when it made one
      // (encodeForStorage), else the written object to make it from.
      const { stored, object: written } = source;
      knownObjectOf(json, stored ? () => atRevision(stored, revision) : () => atRevision(storedObject(written, type), revision));
      return {
        json,
        namespace: strings.intern(meta.namespace ?? ''),
        name: meta.name ?? '',
        labels: meta.labels ? labelSets.share(JSON.stringify(meta.labels), Object.freeze({ ...meta.labels })) : EMPTY,
        fields: accessors.map((read) => strings.intern(read(source.object) ?? '')),
      };
    }
    const text = Buffer.from(kv.value.buffer, kv.value.byteOffset, kv.value.byteLength).toString('utf8');
    let object: ApiObject;
    try {
      object = JSON.parse(text) as ApiObject;
    } catch (error) {
      const name = kv.key.slice(kv.key.lastIndexOf('/') + 1);
      throw storageReadError(`the object stored at ${kv.key} cannot be decoded: ${String(error)}`, { group: type.group, resource: type.resource }, name);
    }
    // A version whose objects differ from the stored ones: converted, and its JSON written anew.
    if (type.conversion) {
      object = type.conversion.fromStorage({ ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } }) as ApiObject;
      const { kind, apiVersion: _v, metadata, ...rest } = object;
      object = { kind, apiVersion: apiVersionOf(type), metadata, ...rest } as ApiObject;
    }
    const meta = object.metadata ?? {};
    let json = type.conversion ? JSON.stringify(object) : spliceResourceVersion(text, revision);
    if (json === undefined) {
      object.metadata = { ...meta, resourceVersion: String(revision) };
      json = JSON.stringify(object);
    }
    return {
      json: ownBytes(json),
      namespace: strings.intern(meta.namespace ?? ''),
      name: meta.name ?? '',
      // Replicas of one workload carry one label set: they share one frozen copy of it.
      labels: meta.labels ? labelSets.share(JSON.stringify(meta.labels), Object.freeze(meta.labels)) : EMPTY,
      fields: accessors.map((read) => strings.intern(read(object) ?? '')),
    };
  };
}

/** A written object's stored form (`storedObject`) as a parse of its stored JSON with `revision` spliced in gives it. */
function atRevision(stored: ApiObject, revision: number): ApiObject {
  return { ...stored, metadata: { resourceVersion: String(revision), ...stored.metadata } };
}

/**
 * The UTF-8 bytes of `text` in a buffer of their own. Buffer.from would carve small ones out of
 * Node's shared 8 KiB pool, where a 2 KiB object can pin up to a third of a slab more than it
 * needs for as long as the cache holds it. One byte more is allocated and holds the newline a
 * response body ends with (`bodyOf`); the bytes returned stop before it, so lists and watch
 * events embed the JSON alone.
 */
function ownBytes(text: string): Buffer {
  const length = Buffer.byteLength(text, 'utf8');
  const bytes = Buffer.allocUnsafeSlow(length + 1);
  bytes.write(text, 'utf8');
  bytes[length] = NEWLINE;
  return bytes.subarray(0, length);
}
const NEWLINE = 0x0a;

/**
 * A ServedObject's JSON as a whole response body: the same memory, one byte longer, taking in the
 * newline `ownBytes` keeps after it (Go's encoder ends every body with one). Nothing is copied, so
 * a GET's answer stays the version's shared bytes. Other bytes are returned as they are.
 */
export function bodyOf(json: Buffer): Buffer {
  if (json.byteOffset + json.length >= json.buffer.byteLength) return json;
  const body = Buffer.from(json.buffer, json.byteOffset, json.length + 1);
  return body[json.length] === NEWLINE ? body : json;
}

/** A ServedObject's bytes: the cache's `encode`. */
export const servedBytes = (object: ServedObject): Uint8Array => object.json;
