import type { KubeObject } from '../../api/index.js';
import { deepFreeze } from '../cache.js';
import { orphansKey } from '../owner-index.js';
import { recordOf as cachedRecordOf, type CachedRecord } from './cached-record.js';
import { findMember, keyIs, malformed, scanMembers, stringAt, stringMember } from './json-scan.js';
import { ViewHandler } from './view-handler.js';

/**
 * Lazily decoded objects. A `LazyRecord` is what the lazy cache keeps per object version: the
 * object's JSON text and the few things the cache itself needs (name, namespace, version, where
 * the labels are), found by the scanner without decoding the object. Readers get a *view*: a
 * Proxy that behaves as the frozen plain object JSON.parse would give — same keys in the same
 * order, same values, frozen, `===` stable for as long as anyone holds it — and decodes a field
 * only when it is read. Nested objects are views too; arrays are decoded whole when read.
 *
 * A record holds its view weakly: a view nobody holds is collected with what it decoded, and the
 * next read makes a new one. Identity is therefore kept wherever it can be observed (two reads
 * while the first result is alive give the same object), and the cache's memory stays the text.
 */

const QUOTE = 34;
const LBRACE = 123;
const LBRACKET = 91;

export class LazyRecord implements CachedRecord {
  #view: WeakRef<object> | undefined;

  constructor(
    /** Text holding the object's JSON at `start` (it may hold more: the event line around it). */
    readonly text: string,
    readonly start: number,
    readonly name: string,
    readonly namespace: string | undefined,
    readonly resourceVersion: string | undefined,
    /** The labels object's text range; -1 when the object has none. */
    readonly labelsStart: number,
    readonly labelsEnd: number,
    /** The ownerReferences array's text range; -1 when the object has none. */
    readonly ownersStart: number,
    readonly ownersEnd: number,
    /** The metadata has a `deletionTimestamp` member (whatever its value). */
    readonly mayBeDeleting: boolean,
  ) {}

  /** `namespace/name`, or `name` (as objectKey). */
  get key(): string {
    return this.namespace ? `${this.namespace}/${this.name}` : this.name;
  }

  /** The labels' JSON text ('' when none). */
  labelsText(): string {
    return this.labelsStart < 0 ? '' : this.text.slice(this.labelsStart, this.labelsEnd);
  }

  /** The labels index's values, `key=value` per label. */
  labelValues(): string[] {
    if (this.labelsStart < 0) return [];
    const labels = JSON.parse(this.text.slice(this.labelsStart, this.labelsEnd)) as Record<string, unknown>;
    return Object.keys(labels).map((k) => `${k}=${String(labels[k])}`);
  }

  sameLabels(other: CachedRecord): boolean {
    return other instanceof LazyRecord && this.labelsText() === other.labelsText();
  }

  ownerValues(): string[] {
    if (this.ownersStart < 0) return [orphansKey(this.namespace ?? '')];
    const owners = JSON.parse(this.text.slice(this.ownersStart, this.ownersEnd)) as ({ uid?: unknown; controller?: unknown } | null)[];
    const values = owners.map((owner) => String(owner?.uid));
    if (!owners.some((owner) => owner?.controller === true)) values.push(orphansKey(this.namespace ?? ''));
    return values;
  }

  sameOwners(other: CachedRecord): boolean {
    if (!(other instanceof LazyRecord)) return false;
    if (this.ownersStart < 0 || other.ownersStart < 0) return this.ownersStart === other.ownersStart;
    return this.text.slice(this.ownersStart, this.ownersEnd) === other.text.slice(other.ownersStart, other.ownersEnd);
  }

  sameMembers(other: CachedRecord, names: readonly string[]): boolean {
    if (!(other instanceof LazyRecord)) return false;
    const mine = scanMembers(this.text, this.start).ranges;
    const theirs = scanMembers(other.text, other.start).ranges;
    for (const name of names) {
      const a = findMember(this.text, mine, name);
      const b = findMember(other.text, theirs, name);
      if (a < 0 || b < 0) {
        if (a !== b) return false;
        continue;
      }
      if (this.text.slice(mine[a + 2], mine[a + 3]) !== other.text.slice(theirs[b + 2], theirs[b + 3])) return false;
    }
    return true;
  }

  withoutManagedFields(): CachedRecord {
    return recordOf(withoutMetadataMember(this.view<KubeObject>(), 'managedFields')) ?? this;
  }

  /** The view: the live one if someone still holds it, else a new one. */
  view<T>(members?: number[]): T {
    const live = this.#view?.deref();
    if (live) return live as T;
    const view = makeView(this.text, this.start, this, members);
    this.#view = new WeakRef(view);
    return view as T;
  }

  lastView<T>(): T {
    return (this.#view?.deref() ?? makeView(this.text, this.start, this)) as T;
  }

}

/** The JSON record behind a top-level view; undefined for anything else. */
export function recordOf(value: unknown): LazyRecord | undefined {
  const record = cachedRecordOf(value);
  return record instanceof LazyRecord ? record : undefined;
}

/**
 * The object whose JSON starts at `text[start]`, as a view backed by a new record. The object's
 * and its metadata's members are scanned now (name, namespace, version, labels); nothing is decoded.
 */
export function lazyObject<T extends KubeObject>(text: string, start: number): T {
  const { ranges } = scanMembers(text, start);
  const m = findMember(text, ranges, 'metadata');
  let name = '';
  let namespace: string | undefined;
  let resourceVersion: string | undefined;
  let labelsStart = -1;
  let labelsEnd = -1;
  let ownersStart = -1;
  let ownersEnd = -1;
  let mayBeDeleting = false;
  if (m >= 0 && text.charCodeAt(ranges[m + 2]!) === LBRACE) {
    const meta = scanMembers(text, ranges[m + 2]!).ranges;
    name = stringMember(text, meta, 'name') ?? '';
    namespace = stringMember(text, meta, 'namespace') || undefined;
    resourceVersion = stringMember(text, meta, 'resourceVersion');
    const l = findMember(text, meta, 'labels');
    if (l >= 0 && text.charCodeAt(meta[l + 2]!) === LBRACE) {
      labelsStart = meta[l + 2]!;
      labelsEnd = meta[l + 3]!;
    }
    const o = findMember(text, meta, 'ownerReferences');
    if (o >= 0 && text.charCodeAt(meta[o + 2]!) === LBRACKET) {
      ownersStart = meta[o + 2]!;
      ownersEnd = meta[o + 3]!;
    }
    mayBeDeleting = findMember(text, meta, 'deletionTimestamp') >= 0;
  }
  const record = new LazyRecord(text, start, name, namespace, resourceVersion, labelsStart, labelsEnd, ownersStart, ownersEnd, mayBeDeleting);
  return record.view<T>(ranges);
}

/**
 * The view of `object` without `metadata.<member>`, as a new record whose text leaves that
 * member out (cut from the text, nothing decoded); `object` itself when it has no such member;
 * undefined when `object` is not a JSON record's view (the caller copies it instead). The new
 * text is a copy: the record no longer holds the event line it came in.
 */
export function withoutMetadataMember<T extends KubeObject>(object: T, member: string): T | undefined {
  const record = recordOf(object);
  if (record === undefined) return undefined;
  const { text, start } = record;
  const { ranges, end } = scanMembers(text, start);
  const m = findMember(text, ranges, 'metadata');
  if (m < 0 || text.charCodeAt(ranges[m + 2]!) !== LBRACE) return object;
  const meta = scanMembers(text, ranges[m + 2]!).ranges;
  const f = findMember(text, meta, member);
  if (f < 0) return object;
  // With the comma that joins it to its neighbour: the one before it, else the one after it.
  const [cutStart, cutEnd] = f > 0 ? [meta[f - 1]!, meta[f + 3]!] : f + 4 < meta.length ? [meta[f]!, meta[f + 4]!] : [meta[f]!, meta[f + 3]!];
  const cutText = text.slice(start, cutStart) + text.slice(cutEnd, end);
  // Where the record's members land in the new text: what it knows (name, namespace, version) is
  // unchanged, and the labels, the owners and the object's members only move, so they are moved
  // rather than found again by a second scan (this runs on every Lease renewal the garbage
  // collector's informers see). A cut that takes the labels or the owners themselves is scanned.
  const cutLength = cutEnd - cutStart;
  // (An extent's end is exclusive: one that ends where the cut starts is before it.)
  const moved = (at: number) => (at < 0 ? at : at < cutStart ? at - start : at - start - cutLength);
  const movedEnd = (at: number) => (at < 0 ? at : at <= cutStart ? at - start : at - start - cutLength);
  const inCut = (from: number) => from >= cutStart && from < cutEnd;
  if (inCut(record.labelsStart) || inCut(record.ownersStart)) return lazyObject<T>(cutText, 0);
  const cut = new LazyRecord(cutText, 0, record.name, record.namespace, record.resourceVersion, moved(record.labelsStart), movedEnd(record.labelsEnd), moved(record.ownersStart), movedEnd(record.ownersEnd), record.mayBeDeleting);
  return cut.view<T>(ranges.map((at, i) => (i % 2 === 0 ? moved(at) : movedEnd(at))));
}

function makeView(text: string, start: number, record: LazyRecord | undefined, members?: number[]): object {
  return new Proxy<Record<string, unknown>>({}, new View(text, start, record, members));
}

/** Not yet decoded (undefined is not a JSON value, but a memo slot may hold any decoded value). */
const UNREAD: unique symbol = Symbol('unread');

/**
 * The handler of one JSON view (the traps are ViewHandler's): `get` of a member decodes that
 * member alone; the members are scanned on first need.
 */
class View extends ViewHandler {
  #members: number[] | undefined;
  #values: unknown[] | undefined;

  constructor(
    readonly text: string,
    readonly start: number,
    readonly record: LazyRecord | undefined,
    members: number[] | undefined,
  ) {
    super();
    this.#members = members;
  }

  #ranges(): number[] {
    return (this.#members ??= scanMembers(this.text, this.start).ranges);
  }

  #value(m: number): unknown {
    const values = (this.#values ??= new Array<unknown>(this.#ranges().length / 4).fill(UNREAD));
    const slot = m / 4;
    const memo = values[slot];
    if (memo !== UNREAD) return memo;
    const ranges = this.#ranges();
    const value = decodeValue(this.text, ranges[m + 2]!, ranges[m + 3]!);
    values[slot] = value;
    return value;
  }

  protected fillMembers(target: Record<string, unknown>): void {
    const ranges = this.#ranges();
    for (let m = 0; m < ranges.length; m += 4) {
      const key = stringAt(this.text, ranges[m]!, ranges[m + 1]!);
      // A repeated key keeps its first position and its last value, as JSON.parse does;
      // defineProperty (not assignment) so that a "__proto__" key is a plain property.
      Object.defineProperty(target, key, { value: this.#value(findMember(this.text, ranges, key)), writable: true, enumerable: true, configurable: true });
    }
  }

  protected member(target: Record<string, unknown>, key: string): unknown {
    const ranges = this.#ranges();
    for (let m = ranges.length - 4; m >= 0; m -= 4) if (keyIs(this.text, ranges, m, key)) return this.#value(m);
    // Not a member: the prototype's (toString, hasOwnProperty, …) or undefined.
    return Reflect.get(target, key);
  }
}

function decodeValue(text: string, start: number, end: number): unknown {
  const c = text.charCodeAt(start);
  if (c === LBRACE) return makeView(text, start, undefined);
  if (c === QUOTE) return stringAt(text, start, end);
  if (c === LBRACKET) return deepFreeze(JSON.parse(text.slice(start, end)) as unknown);
  try {
    return JSON.parse(text.slice(start, end)) as unknown;
  } catch {
    throw malformed(text, start, 'not a JSON value');
  }
}
