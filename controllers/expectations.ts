/** Upstream's ExpectationsTimeout: an expectation older than this is given up on. */
export const EXPECTATIONS_TTL_MS = 5 * 60_000;

export interface ExpectationsOptions {
  /** After this long a pending expectation counts as satisfied (a lost watch event must not block a key forever). Default 5 minutes. */
  readonly ttlMs?: number;
  /** The clock (ms); tests pass their own. */
  readonly now?: () => number;
}

interface Pending {
  creations: number;
  readonly deletions: Set<string>;
  at: number;
}

/**
 * What each controller key has written and its cache has not shown yet, as upstream's
 * ControllerExpectations (with UID-tracked deletions). A reconcile that created three pods reads
 * a cache without them until their watch events arrive; reconciled again in between, it would
 * count too few and create three more. So it records `expectCreations(key, 3)` before writing,
 * the informer's events report each one observed (`observeOwned`), and a reconcile does nothing
 * while `satisfied(key)` is false: it is triggered again when the last one is observed.
 *
 * A key with nothing pending is satisfied. So is one whose expectation is older than the TTL
 * (5 minutes): a create whose event never comes (the server rejected it after the fact, the watch
 * lost it) delays the key, never stops it.
 */
export class Expectations {
  readonly #pending = new Map<string, Pending>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: ExpectationsOptions = {}) {
    this.#ttlMs = options.ttlMs ?? EXPECTATIONS_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** Expects `count` more creations under `key` (call it before creating; lower it with `creationObserved` for each create that fails). */
  expectCreations(key: string, count: number): void {
    if (!Number.isInteger(count) || count < 0) throw new TypeError(`count must be a non-negative integer, got ${String(count)}`);
    this.#fresh(key).creations += count;
  }

  /** Expects the objects of these uids to be deleted under `key` (call it before deleting them). */
  expectDeletions(key: string, uids: Iterable<string>): void {
    const pending = this.#fresh(key);
    for (const uid of uids) pending.deletions.add(uid);
  }

  /** One creation under `key` was observed (or will never happen: its create failed). */
  creationObserved(key: string): void {
    const pending = this.#pending.get(key);
    if (pending && pending.creations > 0) pending.creations -= 1;
  }

  /** The object of `uid` was observed deleted (or its delete failed); uids not expected are ignored. */
  deletionObserved(key: string, uid: string): void {
    this.#pending.get(key)?.deletions.delete(uid);
  }

  /** Whether a reconcile of `key` may trust its cache: nothing pending, or what is pending has expired. */
  satisfied(key: string): boolean {
    const pending = this.#pending.get(key);
    if (pending === undefined) return true;
    if (pending.creations === 0 && pending.deletions.size === 0) return true;
    return this.#now() - pending.at >= this.#ttlMs;
  }

  /** Creations and deletions (uids) still pending for `key`. */
  pending(key: string): { readonly creations: number; readonly deletions: readonly string[] } {
    const pending = this.#pending.get(key);
    return { creations: pending?.creations ?? 0, deletions: pending ? [...pending.deletions] : [] };
  }

  /** Forgets `key` (its owner was deleted). */
  delete(key: string): void {
    this.#pending.delete(key);
  }

  /** The key's record, restarted when what it held is all observed or expired; its clock restarts with each new expectation. */
  #fresh(key: string): Pending {
    let pending = this.#pending.get(key);
    if (pending === undefined || this.satisfied(key)) {
      pending = { creations: 0, deletions: new Set(), at: this.#now() };
      this.#pending.set(key, pending);
    }
    pending.at = this.#now();
    return pending;
  }
}
