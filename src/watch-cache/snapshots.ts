import type { Tree } from './btree.js';

export interface Snapshot<V> {
  /** The state is the one the cache had at this revision. */
  readonly revision: number;
  readonly tree: Tree<V>;
  /** When that state stopped being current (the `now` clock): the window counts from here. */
  readonly until: number;
}

/**
 * Retained states of the cache, ascending by revision, each kept for `windowMs` after it was
 * superseded. A snapshot's tree shares every unchanged node with its neighbours and with the live
 * tree (copy-on-write clones), so one costs about the nodes its successor's writes copied.
 */
export class Snapshots<V> {
  private list: Snapshot<V>[] = [];

  constructor(
    private readonly windowMs: number,
    private readonly max: number,
  ) {}

  /** Keeps `snapshot` in revision order (a later one at the same revision replaces it). */
  add(snapshot: Snapshot<V>): void {
    const i = this.indexAfter(snapshot.revision);
    if (i > 0 && this.list[i - 1]!.revision === snapshot.revision) this.list[i - 1] = snapshot;
    else this.list.splice(i, 0, snapshot);
    if (this.list.length > this.max) this.list.shift();
  }

  /**
   * Drops snapshots superseded more than the window ago. `until` grows with the revision, so
   * they leave from the front.
   */
  evict(now: number): void {
    const oldest = now - this.windowMs;
    let drop = 0;
    while (drop < this.list.length && this.list[drop]!.until < oldest) drop++;
    if (drop > 0) this.list.splice(0, drop);
  }

  /** The newest snapshot with revision <= `revision`. */
  atOrBefore(revision: number): Snapshot<V> | undefined {
    const i = this.indexAfter(revision);
    return i > 0 ? this.list[i - 1] : undefined;
  }

  get size(): number {
    return this.list.length;
  }

  /** The index of the first snapshot with revision > `revision`. */
  private indexAfter(revision: number): number {
    let lo = 0;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.list[mid]!.revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
