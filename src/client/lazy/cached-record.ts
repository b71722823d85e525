/**
 * What the lazy cache keeps per object version, whatever the bytes it came in: JSON text
 * (json-view.ts) or protobuf bytes (proto-view.ts). The cache files and compares records by
 * these alone; readers get the record's view.
 */
export interface CachedRecord {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly resourceVersion: string | undefined;
  /** `namespace/name`, or `name` (as objectKey). */
  readonly key: string;
  /** The labels index's values, `key=value` per label. */
  labelValues(): string[];
  /** True when `other` surely has the same labels (false may still mean equal labels: the caller then compares values). */
  sameLabels(other: CachedRecord): boolean;
  /** The owner index's values (ownerIndex's): the uid of each ownerReference, and `orphansKey(namespace)` when none is the controller. */
  ownerValues(): string[];
  /** True when `other` surely has the same ownerReferences (as sameLabels). */
  sameOwners(other: CachedRecord): boolean;
  /**
   * True when `other` is surely the same object in the top-level members `compared` picks and, if
   * it picks `metadata`, in the metadata members `comparedMetadata` picks (by JSON name; a member
   * neither knows is compared): the same bytes in the same order, nothing decoded. False means
   * "maybe not" — the caller compares decoded values then. A JSON record always answers false.
   */
  sameMembers(other: CachedRecord, compared: (member: string) => boolean, comparedMetadata?: (member: string) => boolean): boolean;
  /**
   * False when the version surely has no `metadata.deletionTimestamp` (the member is not there at
   * all); true when it may (it is there: read the view for its value).
   */
  readonly mayBeDeleting: boolean;
  /** The view: the live one if someone still holds it, else a new one. */
  view<T>(): T;
  /**
   * The view of a version leaving the cache (an update's `old`, a tombstone): the live one, else
   * a new one the record does not remember — nothing will ask this record again, so it needs no
   * WeakRef (one allocation and some collector work less per update).
   */
  lastView<T>(): T;
}

/** Asked of a top-level view, answers its record (views of nested objects answer undefined). */
export const RECORD = Symbol('svc.lazyRecord');

/** The record behind a top-level view; undefined for anything else (a plain object, a nested view). */
export function recordOf(value: unknown): CachedRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return (value as { [RECORD]?: CachedRecord })[RECORD];
}

/**
 * An object's `metadata.resourceVersion`, from its record when it is a cache's view (nothing
 * decoded: a protobuf view would decode its whole ObjectMeta for it). A loop that looks at every
 * cached object each pass compares it to skip the versions it has read already.
 */
export function resourceVersionOf(object: { readonly metadata: { readonly resourceVersion?: string | undefined } }): string | undefined {
  const record = recordOf(object);
  return record ? record.resourceVersion : object.metadata.resourceVersion;
}

/**
 * An object's `metadata.deletionTimestamp`; from a cache's view whose record has none, undefined
 * without a decode (a protobuf view would decode its ObjectMeta's field list for it, a JSON view
 * scan its metadata's members). The garbage collector asks it of every update it sees.
 */
export function deletionTimestampOf(object: { readonly metadata: { readonly deletionTimestamp?: string | undefined } }): string | undefined {
  const record = recordOf(object);
  return record !== undefined && !record.mayBeDeleting ? undefined : object.metadata.deletionTimestamp;
}

/**
 * True when `a` and `b` are cache views whose `metadata.ownerReferences` are surely the same (the
 * same bytes; both absent counts): a loop that only follows owners can pass over an update
 * without decoding them. False means "maybe not": compare the decoded references then.
 */
export function sameOwnerReferences(a: unknown, b: unknown): boolean {
  const before = recordOf(a);
  const after = recordOf(b);
  return before !== undefined && after !== undefined && before.sameOwners(after);
}

/**
 * True when `a` and `b` are cache views whose members, but the top-level ones named in `except`
 * and the metadata ones named in `exceptMetadata`, are surely the same (the same protobuf bytes in
 * the same order, nothing decoded). A consumer that tells a status-only change from a spec change
 * (the node agent's pod sources) asks this before comparing decoded objects, which decodes both
 * versions whole, managedFields too. False means "maybe not" — plain objects, JSON views, other
 * bytes: compare the decoded members then.
 */
export function sameMembersExcept(a: unknown, b: unknown, except: readonly string[], exceptMetadata: readonly string[] = []): boolean {
  const before = recordOf(a);
  const after = recordOf(b);
  return (
    before !== undefined &&
    after !== undefined &&
    before.sameMembers(
      after,
      (member) => !except.includes(member),
      (member) => !exceptMetadata.includes(member),
    )
  );
}

/** True when `a` and `b` are cache views whose top-level `member` is surely the same (as {@link sameMembersExcept}). */
export function sameMember(a: unknown, b: unknown, member: string): boolean {
  const before = recordOf(a);
  const after = recordOf(b);
  return before !== undefined && after !== undefined && before.sameMembers(after, (name) => name === member);
}
