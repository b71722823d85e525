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
   * True when `other` surely has the same top-level members `names` (each the same bytes, or
   * absent from both); false may still mean equal members. What an index that declares its
   * reads (IndexFunc.reads) is skipped by.
   */
  sameMembers(other: CachedRecord, names: readonly string[]): boolean;
  /**
   * This version without `metadata.managedFields`, as a record of its own (this one when there
   * are none): cut from the bytes, nothing decoded. What `stripManagedFields` does to a view.
   */
  withoutManagedFields(): CachedRecord;
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
 * True when `a` and `b` are cache views whose top-level members `names` (`spec`, …) are surely
 * the same bytes (absent from both counts): a trigger that only reads those can take an update's
 * new version for its old one without decoding the old. False means "maybe not".
 */
export function sameMembers(a: unknown, b: unknown, names: readonly string[]): boolean {
  const before = recordOf(a);
  const after = recordOf(b);
  return before !== undefined && after !== undefined && before.sameMembers(after, names);
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
