/**
 * One version of one object as the cache holds it. The tree, the history and every snapshot that
 * contain this version share this one instance, and every watcher and list that sends it shares
 * its bytes.
 */
export interface CachedObject<T> {
  /** The store key. */
  readonly key: string;
  /** The version's modRevision; for a DELETED event's object, the revision of the delete. */
  readonly revision: number;
  /** Decoded and deep-frozen, its resourceVersion stamped by the cache's `decode`. */
  readonly object: T;
  /** The version's JSON encoding, computed on first use and then shared. */
  bytes(): Uint8Array;
}

const utf8 = new TextEncoder();

/** The default `encode`: the object's JSON text as UTF-8. */
export const encodeJson = (object: unknown): Uint8Array => utf8.encode(JSON.stringify(object));

/**
 * The implementation of CachedObject. It also remembers the key's createRevision, which the cache
 * needs when it re-decodes a version for a delete. The instance is frozen; the bytes live in a
 * private field, which freezing does not cover, so they can still be filled in lazily.
 */
export class CachedVersion<T> implements CachedObject<T> {
  #bytes: Uint8Array | undefined;

  constructor(
    readonly key: string,
    readonly revision: number,
    readonly createRevision: number,
    readonly object: T,
    private readonly encode: (object: T) => Uint8Array,
  ) {
    Object.freeze(this);
  }

  bytes(): Uint8Array {
    return (this.#bytes ??= this.encode(this.object));
  }
}

/**
 * Freezes `value` and everything reachable from it. A subtree that is already frozen is taken to
 * be deep-frozen (a decoder that freezes as it builds pays nothing here). Typed arrays cannot be
 * frozen and are left as they are.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
