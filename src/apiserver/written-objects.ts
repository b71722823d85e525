import { isStatusError, type ResourceType } from '../api/index.js';
import type { ApiObject } from './api-object.js';
import { isEventType } from './event-types.js';

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
 * memory), least recently written or read first out. Events have a small budget of their own
 * (`eventBytes`): a pod start writes three or four of them and 0.1–0.2 of them a pod are ever
 * written again (a repeat's count), so in the one budget they pushed out the pods' and Leases'
 * versions, which are. The Events written again soon (a combined Event counting a ReplicaSet's
 * creates, a crash loop's BackOff) stay in theirs.
 */
export class WrittenObjects {
  private readonly objects: Budget;
  private readonly events: Budget;
  private readonly guesses = new WeakSet<ApiObject>();

  /** `eventBytes`: what Events may hold, apart from `maxBytes` (default a sixteenth of it). */
  constructor(maxBytes: number, eventBytes = Math.floor(maxBytes / 16)) {
    this.objects = new Budget(maxBytes);
    this.events = new Budget(eventBytes);
  }

  /** The kept version of the object at `key` as `type` serves it. */
  get(type: ResourceType, key: string): ApiObject | undefined {
    return this.budgetOf(type).get(idOf(type, key));
  }

  /** Keeps `object` (stored at `key`, `size` bytes, its resourceVersion set) as the newest version of it. */
  set(type: ResourceType, key: string, object: ApiObject, size: number): void {
    if (!keepable(type)) return;
    if (this.budgetOf(type).set(idOf(type, key), object, size)) this.guesses.add(object);
  }

  forget(type: ResourceType, key: string): void {
    this.budgetOf(type).forget(idOf(type, key));
  }

  /** Whether `object` came from here: a write that started from it must not trust it to be current. */
  isGuess(object: ApiObject): boolean {
    return this.guesses.has(object);
  }

  get size(): number {
    return this.objects.size + this.events.size;
  }

  private budgetOf(type: ResourceType): Budget {
    return isEventType(type) ? this.events : this.objects;
  }
}

/** Kept versions by id up to a bound of stored bytes, least recently used out first. */
class Budget {
  private readonly entries = new Map<string, { readonly object: ApiObject; readonly bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(id: string): ApiObject | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.object;
  }

  /** Whether `object` is kept (not larger than the bound, not older than the kept version). */
  set(id: string, object: ApiObject, size: number): boolean {
    if (size > this.maxBytes) return false;
    // Two writes of one object may be answered out of order: the newer version stays.
    const kept = this.entries.get(id);
    if (kept && Number(kept.object.metadata.resourceVersion) > Number(object.metadata.resourceVersion)) return false;
    this.forget(id);
    this.entries.set(id, { object, bytes: size });
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
    return true;
  }

  forget(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.bytes -= entry.bytes;
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
