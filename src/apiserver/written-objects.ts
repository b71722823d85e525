import { isStatusError, type ResourceType } from '../api/index.js';
import type { ApiObject } from './api-object.js';

/**
 * The version this server last wrote of the objects it wrote lately, decoded, so that the next
 * update of one of them starts from it instead of reading the store and parsing the stored text
 * (a status writer, a Lease renewal, the endpointslice loop: the same objects written again and
 * again). It is a guess, as kube-apiserver's GuaranteedUpdate takes the watch cache's object: a
 * write that started from it is checked by the store's compare-and-swap on its resourceVersion,
 * and whoever gets a Conflict, a NotFound, a failed precondition or a write that changes nothing
 * reads the store and tries again (`isGuess`, `failedOnGuess`). Objects handed out are shared and
 * never changed.
 *
 * Bounded by the stored bytes of the objects kept (a decoded object takes a few times its text in
 * memory), least recently written or read first out.
 */
export class WrittenObjects {
  private readonly entries = new Map<string, { readonly object: ApiObject; readonly bytes: number }>();
  private readonly guesses = new WeakSet<ApiObject>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The kept version of the object at `key` as `type` serves it. */
  get(type: ResourceType, key: string): ApiObject | undefined {
    const id = idOf(type, key);
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.object;
  }

  /** Keeps `object` (stored at `key`, `size` bytes, its resourceVersion set) as the newest version of it. */
  set(type: ResourceType, key: string, object: ApiObject, size: number): void {
    if (!keepable(type) || size > this.maxBytes) return;
    // One id per call (each is a string made and hashed): every renewal of a Lease comes here.
    const id = idOf(type, key);
    // Two writes of one object may be answered out of order: the newer version stays.
    const kept = this.entries.get(id);
    if (kept && Number(kept.object.metadata.resourceVersion) > Number(object.metadata.resourceVersion)) return;
    if (kept) {
      this.entries.delete(id);
      this.bytes -= kept.bytes;
    }
    this.entries.set(id, { object, bytes: size });
    this.guesses.add(object);
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  forget(type: ResourceType, key: string): void {
    const id = idOf(type, key);
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.bytes -= entry.bytes;
  }

  /** Whether `object` came from here: a write that started from it must not trust it to be current. */
  isGuess(object: ApiObject): boolean {
    return this.guesses.has(object);
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Versions of one type share the stored key: each keeps its own view (apiVersion). A version
 * converted to and from another stored form is not kept: its stored text is not the served object.
 */
const idOf = (type: ResourceType, key: string) => `${type.group}/${type.version}\n${key}`;
const keepable = (type: ResourceType) => !type.conversion && (type.storageVersion === undefined || type.storageVersion === type.version);

/** A write started from a guess that the store's version is not: start again from the store. */
export class StaleGuess extends Error {
  constructor() {
    super('the object changed since this server last wrote it');
  }
}

/**
 * Whether a write that started from a guess failed in a way the guess can explain, so that trying
 * again from the store is right: the store holds another version (`StaleGuess`), or the request
 * was judged against the guess and refused (a 4xx: the body's resourceVersion, a precondition,
 * admission, validation against the old object). Anything else is the write's own outcome and is
 * answered as it is: a store failure after the compare-and-swap was sent (etcd's answer lost with
 * its leader) may be a write that was carried out, and a second try from the store would find
 * that write and answer its own success as a 409 Conflict (or apply a patch twice).
 */
export function failedOnGuess(error: unknown): boolean {
  return error instanceof StaleGuess || (isStatusError(error) && error.code >= 400 && error.code < 500);
}
