import protobuf from 'protobufjs';
import { decodeMessage, fromMessage, shortString, shortStringOfLatin1, type JsonObject } from '../../encoding/index.js';
import { deepFreeze } from '../cache.js';
import { orphansKey } from '../owner-index.js';
import type { CachedRecord } from './cached-record.js';
import { BytesReader, malformedProtobuf, TextReader, utf8Of } from './proto-wire.js';
import { wireTime } from './proto-time.js';
import { ViewHandler } from './view-handler.js';

/**
 * Lazily decoded protobuf objects: the binary counterpart of json-view.ts. A `ProtoRecord` is
 * what the lazy cache keeps per object version: the message's bytes, copied once out of the
 * stream into a latin1 string (one character per byte, on the V8 heap, freed in one piece),
 * plus the name, namespace and version read from the ObjectMeta field by walking its fields —
 * protobuf says every field's length, so nothing is scanned character by character and nothing
 * is decoded. Readers get a view: a Proxy that behaves as the frozen object `decodeProtobuf`
 * gives (same keys in the same order, same values), decoding a field when it is read. A message
 * field read is itself a view (so `pod.metadata.resourceVersion` decodes one string, not the
 * managedFields next to it); other fields (lists, maps, times, quantities) are decoded whole,
 * frozen, and memoized. Anything that needs every key (Object.keys, spreading, JSON.stringify,
 * `in`) decodes the whole message once, after which the view is a frozen plain object behind a
 * Proxy.
 */

/** Messages whose JSON is not an object of their fields: always decoded whole (convert.ts). */
const VALUE_MESSAGES = new Set([
  '.svc.meta.v1.Time',
  '.svc.meta.v1.MicroTime',
  '.svc.meta.v1.Duration',
  '.svc.util.Quantity',
  '.svc.util.IntOrString',
  '.svc.runtime.RawExtension',
  '.svc.meta.v1.FieldsV1',
  '.svc.util.StringList',
]);

/** What the views need to know of a message, worked out once per message (protobufjs computes `fullName` on every read). */
interface TypeInfo {
  /** Its JSON is a value, not an object of its fields (VALUE_MESSAGES). */
  readonly value: boolean;
  /** It has Kubernetes' embedded (`...Inline`) fields, whose members are flat in its JSON. */
  readonly inline: boolean;
  /** The number of its `metadata` field when that is an ObjectMeta; -1 otherwise. */
  readonly metaId: number;
  readonly metaType: protobuf.Type | undefined;
  /** A `Time` or `MicroTime`: read off the wire by proto-time.ts. */
  readonly time: 'seconds' | 'micro' | undefined;
}
const infoByType = new WeakMap<protobuf.Type, TypeInfo>();
function infoOf(type: protobuf.Type): TypeInfo {
  let info = infoByType.get(type);
  if (!info) {
    const meta = type.fields['metadata'];
    const metaType = meta && !meta.repeated && meta.resolvedType instanceof protobuf.Type && meta.resolvedType.fullName === '.svc.meta.v1.ObjectMeta' ? meta.resolvedType : undefined;
    const time = type.fullName === '.svc.meta.v1.Time' ? 'seconds' : type.fullName === '.svc.meta.v1.MicroTime' ? 'micro' : undefined;
    info = { value: VALUE_MESSAGES.has(type.fullName), inline: type.fieldsArray.some((f) => f.name.endsWith('Inline')), metaId: metaType ? meta!.id : -1, metaType, time };
    infoByType.set(type, info);
  }
  return info;
}

/** The hot path's readers, reused (protoRecord calls nothing that could re-enter it). */
const EMPTY = new Uint8Array(0);
const topReader = new BytesReader(EMPTY);
const metaReader = new BytesReader(EMPTY);

export class ProtoRecord implements CachedRecord {
  #view: WeakRef<object> | undefined;

  constructor(
    /** The object's message bytes as latin1 characters (the envelope and event around them are not kept). */
    readonly text: string,
    readonly type: protobuf.Type,
    readonly apiVersion: string,
    readonly kind: string,
    readonly name: string,
    readonly namespace: string | undefined,
    readonly resourceVersion: string | undefined,
    /** The ObjectMeta's extent in `text`; -1 when the message has none. */
    readonly metaStart: number,
    readonly metaEnd: number,
    /** The labels' map entries' extent in `text` when they are adjacent (as every encoder writes them); -1: none, -2: scattered. */
    readonly labelsStart: number,
    readonly labelsEnd: number,
    /** The ownerReferences' extent in `text`, as the labels'. */
    readonly ownersStart: number,
    readonly ownersEnd: number,
    /** ObjectMeta's deletionTimestamp (field 9) is on the wire. */
    readonly mayBeDeleting: boolean,
  ) {}

  get key(): string {
    return (this.#key ??= this.namespace ? `${this.namespace}/${this.name}` : this.name);
  }
  #key: string | undefined;

  labelValues(): string[] {
    if (this.labelsStart === -1) return [];
    // A map entry is {1: key, 2: value}; a repeated key keeps its first place and its last value.
    const labels = new Map<string, string>();
    const meta = new TextReader(this.text, this.metaStart, this.metaEnd);
    while (meta.next()) {
      if (meta.current.field !== 11 || meta.current.wire !== 2) continue;
      const entry = new TextReader(this.text, meta.current.start, meta.current.end);
      let key = '';
      let value = '';
      while (entry.next()) {
        const f = entry.current;
        if (f.wire !== 2) continue;
        if (f.field === 1) key = utf8Of(this.text, f.start, f.end);
        else if (f.field === 2) value = utf8Of(this.text, f.start, f.end);
      }
      labels.set(key, value);
    }
    return Array.from(labels, ([k, v]) => `${k}=${v}`);
  }

  sameLabels(other: CachedRecord): boolean {
    return other instanceof ProtoRecord && sameRun(this.text, this.labelsStart, this.labelsEnd, other.text, other.labelsStart, other.labelsEnd);
  }

  ownerValues(): string[] {
    if (this.ownersStart === -1) return [orphansKey(this.namespace ?? '')];
    // OwnerReference {4: uid, 6: controller}; the last of a field counts, as in a full decode.
    const uids: string[] = [];
    let controlled = false;
    const meta = new TextReader(this.text, this.metaStart, this.metaEnd);
    while (meta.next()) {
      if (meta.current.field !== 13 || meta.current.wire !== 2) continue;
      const owner = new TextReader(this.text, meta.current.start, meta.current.end);
      let uid = '';
      let controller = false;
      while (owner.next()) {
        if (owner.current.field === 4 && owner.current.wire === 2) uid = utf8Of(this.text, owner.current.start, owner.current.end);
        else if (owner.current.field === 6 && owner.current.wire === 0) controller = varintIsSet(this.text, owner.current.start, owner.current.end);
      }
      uids.push(uid);
      controlled ||= controller;
    }
    if (!controlled) uids.push(orphansKey(this.namespace ?? ''));
    return uids;
  }

  sameOwners(other: CachedRecord): boolean {
    return other instanceof ProtoRecord && sameRun(this.text, this.ownersStart, this.ownersEnd, other.text, other.ownersStart, other.ownersEnd);
  }

  sameMembers(other: CachedRecord, names: readonly string[]): boolean {
    if (!(other instanceof ProtoRecord) || other.type !== this.type) return false;
    for (const name of names) {
      // A member of an embedded message has no field of its own: nothing to compare.
      const field = Object.hasOwn(this.type.fields, name) ? this.type.fields[name] : undefined;
      if (field === undefined) return false;
      const mine = fieldRun(this.text, field.id);
      const theirs = fieldRun(other.text, field.id);
      if (!sameRun(this.text, mine.start, mine.end, other.text, theirs.start, theirs.end)) return false;
    }
    return true;
  }

  withoutManagedFields(): CachedRecord {
    const id = infoOf(this.type).metaType?.fields['managedFields']?.id;
    if (this.metaStart < 0 || id === undefined) return this;
    // The entries' extents in the ObjectMeta, and what is left of it.
    const cuts: number[] = [];
    const meta = new TextReader(this.text, this.metaStart, this.metaEnd);
    while (meta.next()) if (meta.current.field === id) cuts.push(meta.current.tagStart, meta.current.end);
    if (cuts.length === 0) return this;
    let kept = this.metaEnd - this.metaStart;
    for (let i = 0; i < cuts.length; i += 2) kept -= cuts[i + 1]! - cuts[i]!;
    // The ObjectMeta's tag and length are written again: the length shrank (and may take fewer bytes).
    const metaId = infoOf(this.type).metaId;
    let tagStart = -1;
    const top = new TextReader(this.text, 0, this.text.length);
    while (top.next()) if (top.current.field === metaId && top.current.start === this.metaStart) tagStart = top.current.tagStart;
    if (tagStart < 0) return this;
    let text = this.text.slice(0, tagStart) + varintText(metaId * 8 + 2) + varintText(kept);
    let at = this.metaStart;
    for (let i = 0; i < cuts.length; i += 2) {
      text += this.text.slice(at, cuts[i]!);
      at = cuts[i + 1]!;
    }
    const bytes = Buffer.from(text + this.text.slice(at), 'latin1');
    return protoRecord(bytes, 0, bytes.length, this.type, this.apiVersion, this.kind);
  }

  view<T>(): T {
    const live = this.#view?.deref();
    if (live) return live as T;
    const view = this.#newView();
    this.#view = new WeakRef(view);
    return view as T;
  }

  lastView<T>(): T {
    return (this.#view?.deref() ?? this.#newView()) as T;
  }

  #newView(): object {
    return new Proxy<Record<string, unknown>>({}, new MessageView(this.text, 0, this.text.length, this.type, this));
  }
}

/** The extent of a top-level field's occurrences in a message: -1 when it has none, -2 when they are not adjacent. */
function fieldRun(text: string, id: number): { start: number; end: number } {
  let start = -1;
  let end = -1;
  let previous = -1;
  const reader = new TextReader(text, 0, text.length);
  while (reader.next()) {
    const f = reader.current;
    if (f.field === id) {
      if (start === -1) start = f.tagStart;
      else if (previous !== id) return { start: -2, end: -2 };
      end = f.end;
    }
    previous = f.field;
  }
  return { start, end };
}

/** A varint as latin1 characters (one per byte). */
function varintText(value: number): string {
  let text = '';
  let n = value;
  while (n >= 0x80) {
    text += String.fromCharCode((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  return text + String.fromCharCode(n);
}

/** Whether two runs of fields (-1: none, -2: scattered) are surely equal: both absent, or the same bytes. */
function sameRun(a: string, aStart: number, aEnd: number, b: string, bStart: number, bEnd: number): boolean {
  if (aStart < -1 || bStart < -1) return false;
  if (aStart === -1 || bStart === -1) return aStart === bStart;
  const length = aEnd - aStart;
  if (bEnd - bStart !== length) return false;
  for (let i = 0; i < length; i += 1) if (a.charCodeAt(aStart + i) !== b.charCodeAt(bStart + i)) return false;
  return true;
}

/**
 * A record of the object whose message (of `type`) is `bytes[start, end)`: its ObjectMeta walked
 * for the name, namespace, version and labels, then its bytes copied out as one latin1 string.
 */
export function protoRecord(bytes: Buffer, start: number, end: number, type: protobuf.Type, apiVersion: string, kind: string): ProtoRecord {
  const metaId = infoOf(type).metaId;
  let metaStart = -1;
  let metaEnd = -1;
  const top = topReader.reset(bytes, start, end);
  while (top.next()) {
    // The last occurrence wins, as in a full decode.
    if (top.current.field === metaId && top.current.wire === 2) {
      metaStart = top.current.start;
      metaEnd = top.current.end;
    }
  }
  let name = '';
  let namespace: string | undefined;
  let resourceVersion: string | undefined;
  let labelsStart = -1;
  let labelsEnd = -1;
  let ownersStart = -1;
  let ownersEnd = -1;
  let mayBeDeleting = false;
  if (metaStart >= 0) {
    const meta = metaReader.reset(bytes, metaStart, metaEnd);
    let previous = -1;
    while (meta.next()) {
      const f = meta.current;
      // deletionTimestamp, whatever its wire type: the view says what it holds.
      if (f.field === 9) mayBeDeleting = true;
      if (f.wire !== 2) {
        previous = f.field;
        continue;
      }
      switch (f.field) {
        case 1:
          name = bytes.toString('utf8', f.start, f.end);
          break;
        case 3:
          // Shared: a namespace's objects all hold it.
          namespace = f.end > f.start ? shortString(bytes, f.start, f.end) : undefined;
          break;
        case 6:
          resourceVersion = f.end > f.start ? bytes.toString('utf8', f.start, f.end) : undefined;
          break;
        case 11:
          if (labelsStart === -1) labelsStart = f.tagStart;
          else if (previous !== 11) labelsStart = -2;
          if (labelsStart >= 0) labelsEnd = f.end;
          break;
        case 13:
          if (ownersStart === -1) ownersStart = f.tagStart;
          else if (previous !== 13) ownersStart = -2;
          if (ownersStart >= 0) ownersEnd = f.end;
          break;
      }
      previous = f.field;
    }
  }
  const text = bytes.toString('latin1', start, end);
  // Let go of the chunk: a reader left pointing at it would keep it alive.
  topReader.reset(EMPTY, 0, 0);
  metaReader.reset(EMPTY, 0, 0);
  if (metaStart >= 0) {
    metaStart -= start;
    metaEnd -= start;
  }
  if (labelsStart >= 0) {
    labelsStart -= start;
    labelsEnd -= start;
  }
  if (ownersStart >= 0) {
    ownersStart -= start;
    ownersEnd -= start;
  }
  return new ProtoRecord(text, type, apiVersion, kind, name, namespace, resourceVersion, metaStart, metaEnd, labelsStart, labelsEnd, ownersStart, ownersEnd, mayBeDeleting);
}

/**
 * The handler of one view over the message `text[start, end)` of `type` (the traps are
 * ViewHandler's): `get` decodes the one field asked for; making it whole decodes the message,
 * in decodeProtobuf's key order.
 */
class MessageView extends ViewHandler {
  /** Every field on the wire: [field number, tag start, value start, value end, wire type] each. */
  #fields: number[] | undefined;
  #memo: Map<string, unknown> | undefined;
  #metaView: Record<string, unknown> | undefined;

  constructor(
    readonly text: string,
    readonly start: number,
    readonly end: number,
    readonly type: protobuf.Type,
    /** Set on an object's top-level view only: it answers `kind` and `apiVersion` too. */
    readonly record: ProtoRecord | undefined,
    /** Set on the view of an object's ObjectMeta: the record whose name, namespace and version it answers without a scan. */
    readonly metaOf?: ProtoRecord | undefined,
  ) {
    super();
  }

  #scan(): number[] {
    if (this.#fields) return this.#fields;
    const fields: number[] = [];
    const reader = new TextReader(this.text, this.start, this.end);
    while (reader.next()) {
      const f = reader.current;
      fields.push(f.field, f.tagStart, f.start, f.end, f.wire);
    }
    return (this.#fields = fields);
  }

  /** The bytes of the whole message, or of the occurrences of one field (a message of that field alone). */
  #bytes(id?: number): Buffer {
    if (id === undefined) return Buffer.from(this.text.slice(this.start, this.end), 'latin1');
    const fields = this.#scan();
    const parts: Buffer[] = [];
    for (let i = 0; i < fields.length; i += 5) if (fields[i] === id) parts.push(Buffer.from(this.text.slice(fields[i + 1], fields[i + 3]), 'latin1'));
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  #decodeMessage(bytes: Buffer): JsonObject {
    try {
      return fromMessage(this.type, decodeMessage(this.type, bytes) as unknown as JsonObject);
    } catch (error) {
      throw malformedProtobuf(`not a valid ${this.type.name}: ${(error as Error).message}`);
    }
  }

  /** The JSON value of one field (undefined when it is not on the wire or its JSON leaves it out). */
  #field(field: protobuf.Field, key: string): unknown {
    const fields = this.#scan();
    let last = -1;
    for (let i = fields.length - 5; i >= 0; i -= 5) {
      if (fields[i] === field.id) {
        last = i;
        break;
      }
    }
    if (last < 0) return undefined;
    if (!field.repeated && !field.map && fields[last + 4] === 2) {
      const valueStart = fields[last + 2]!;
      const valueEnd = fields[last + 3]!;
      const message = field.resolvedType;
      // Only the last occurrence counts (protobufjs replaces a repeated message field, it does not merge).
      if (message instanceof protobuf.Type && !infoOf(message).value) {
        // The object's ObjectMeta knows its name, namespace and version from the record.
        const known = this.record && field.id === infoOf(this.type).metaId ? this.record : undefined;
        return new Proxy<Record<string, unknown>>({}, new MessageView(this.text, valueStart, valueEnd, message, undefined, known));
      }
      if (message instanceof protobuf.Type && infoOf(message).time !== undefined) {
        const time = wireTime(this.text, valueStart, valueEnd, infoOf(message).time === 'micro');
        if (time !== null) return time;
      }
      if (field.type === 'string') {
        const value = shortStringOfLatin1(this.text, valueStart, valueEnd);
        // Go's zero value: JSON leaves the field out (as fromMessage does).
        return value === '' ? undefined : value;
      }
    }
    return deepFreeze(this.#decodeMessage(this.#bytes(field.id))[key]);
  }

  /** An object's ObjectMeta view: the record says where it is, so the object's fields need no walk. */
  #metadata(): Record<string, unknown> {
    const record = this.record!;
    return (this.#metaView ??= new Proxy<Record<string, unknown>>({}, new MessageView(this.text, record.metaStart, record.metaEnd, infoOf(this.type).metaType!, undefined, record)));
  }

  protected fillMembers(target: Record<string, unknown>): void {
    const decoded = this.#decodeMessage(this.#bytes());
    const object: JsonObject = this.record ? { kind: this.record.kind, apiVersion: this.record.apiVersion, ...decoded } : decoded;
    for (const key of Object.keys(object)) {
      // A field already handed out keeps its identity (a nested view stays the same object).
      const memo = key === 'metadata' && this.#metaView ? this.#metaView : this.#memo?.get(key);
      const value = memo !== undefined ? memo : deepFreeze(object[key]);
      Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
    }
    this.#memo = undefined;
  }

  protected member(target: Record<string, unknown>, key: string): unknown {
    if (this.record && key === 'kind') return this.record.kind;
    if (this.record && key === 'apiVersion') return this.record.apiVersion;
    if (key === 'metadata' && this.record && this.record.metaStart >= 0) return this.#metadata();
    if (this.metaOf) {
      // Go's zero values are left out of JSON: an empty name reads as absent.
      if (key === 'name') return this.metaOf.name || undefined;
      if (key === 'namespace') return this.metaOf.namespace;
      if (key === 'resourceVersion') return this.metaOf.resourceVersion;
    }
    if (this.#memo?.has(key)) return this.#memo.get(key) ?? Reflect.get(target, key);
    const field = Object.hasOwn(this.type.fields, key) ? this.type.fields[key] : undefined;
    if (!field || field.name.endsWith('Inline')) {
      // A member of an embedded message, or not a member: only the whole message tells.
      if (infoOf(this.type).inline) {
        this.fill(target);
        return Reflect.get(target, key);
      }
      return Reflect.get(target, key);
    }
    const value = this.#field(field, key);
    // `undefined` is memoized too: a field whose JSON is left out is not looked for again.
    (this.#memo ??= new Map()).set(key, value);
    return value === undefined ? Reflect.get(target, key) : value;
  }
}

/** Whether the varint in `text[start, end)` is not zero (a bool field: true). */
function varintIsSet(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) if ((text.charCodeAt(i) & 0x7f) !== 0) return true;
  return false;
}
