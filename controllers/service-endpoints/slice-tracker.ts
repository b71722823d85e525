import type { EndpointSlice } from '../../src/api/index.js';

const revision = (slice: EndpointSlice): bigint => {
  try {
    return BigInt(slice.metadata.resourceVersion ?? '0');
  } catch {
    return 0n;
  }
};

/**
 * The slices a loop wrote that its informer may not show yet (upstream's EndpointSliceTracker):
 * a sync that follows its own write at once — the next pod change, before the watch event —
 * must start from what it wrote, or it would write again from a stale version (a 409 and a
 * retry) or create a slice twice. Entries go as soon as the informer shows the version written
 * (or a later one), so the tracker holds only writes in flight.
 */
export class SliceTracker {
  /** By `namespace/name`: the version the loop last wrote. */
  readonly #written = new Map<string, EndpointSlice>();
  /** uids of slices the loop deleted that the informer may still show. */
  readonly #deleted = new Set<string>();

  /** The slices of one owner as the loop last knows them: the informer's, newer writes first, deletions applied. */
  current(cached: readonly EndpointSlice[], ownerUid: string): EndpointSlice[] {
    const out: EndpointSlice[] = [];
    const seen = new Set<string>();
    for (const slice of cached) {
      const key = keyOf(slice);
      seen.add(key);
      if (this.#deleted.has(slice.metadata.uid!)) continue;
      const written = this.#written.get(key);
      if (written !== undefined && written.metadata.uid === slice.metadata.uid && revision(written) > revision(slice)) out.push(written);
      else {
        if (written !== undefined) this.#written.delete(key);
        out.push(slice);
      }
    }
    for (const [key, written] of this.#written) {
      if (!seen.has(key) && written.metadata.ownerReferences?.some((ref) => ref.uid === ownerUid)) out.push(written);
    }
    // A deletion the informer no longer shows is done.
    for (const uid of this.#deleted) if (!cached.some((slice) => slice.metadata.uid === uid)) this.#deleted.delete(uid);
    return out;
  }

  /** Records a slice as the server answered a create or update. */
  wrote(slice: EndpointSlice): void {
    this.#written.set(keyOf(slice), slice);
  }

  /** Records a deletion. */
  deleted(slice: EndpointSlice): void {
    this.#written.delete(keyOf(slice));
    this.#deleted.add(slice.metadata.uid!);
  }

  /**
   * Takes an informer event of a slice and answers whether it is news the loop has already
   * acted on (no sync is needed for it): the very version this loop wrote (the write in flight
   * is then settled), or an older version than the one it wrote — an earlier write of its own
   * arriving late, or a version its later write replaced (that write was checked against its
   * resourceVersion, so no one else's change hides in between). Upstream's tracker ignores a
   * generation older than its own the same way. Taking such a late event as a change made each
   * late event of a busy Service's slices another sync, ahead of the batch period, whose writes
   * made late events of their own (issue #24, docs/benchmarks.md). A newer version than the
   * loop wrote, or a deletion, is someone else's change: a sync.
   */
  observed(type: string, slice: EndpointSlice): boolean {
    const key = keyOf(slice);
    const written = this.#written.get(key);
    if (written === undefined) return false;
    if (type === 'deleted' || written.metadata.uid !== slice.metadata.uid) {
      this.#written.delete(key);
      return false;
    }
    if (revision(slice) < revision(written)) return true;
    this.#written.delete(key);
    return written.metadata.resourceVersion === slice.metadata.resourceVersion;
  }

  /** Forgets every write of an owner (it is gone, or a write failed and the informer is the truth again). */
  forget(ownerUid: string): void {
    for (const [key, written] of this.#written) if (written.metadata.ownerReferences?.some((ref) => ref.uid === ownerUid)) this.#written.delete(key);
  }
}

const keyOf = (slice: EndpointSlice): string => `${slice.metadata.namespace}/${slice.metadata.name}`;
