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
  // Live snapshots are list[head..]; the front is dropped by moving `head` and compacted now and
  // then (as History does), because splicing the front of a list of tens of thousands (a type
  // written 500 times a second keeps 37,500 over a 75 s window) moves the whole list on every
  // write: 24-90 us each.
  private list: (Snapshot<V> | undefined)[] = [];
  private head = 0;

  constructor(
    private readonly windowMs: number,
    private readonly max: number,
  ) {}

  /** Keeps `snapshot` in revision order (a later one at the same revision replaces it). */
  add(snapshot: Snapshot<V>): void {
    const i = this.indexAfter(snapshot.revision);
    if (i > this.head && this.list[i - 1]!.revision === snapshot.revision) this.list[i - 1] = snapshot;
    else if (i === this.list.length) this.list.push(snapshot);
    else this.list.splice(i, 0, snapshot);
    if (this.size > this.max) this.dropFront(1);
  }

  /**
   * Drops snapshots superseded more than the window ago. `until` grows with the revision, so
   * they leave from the front.
   */
  evict(now: number): void {
    const oldest = now - this.windowMs;
    let drop = 0;
    while (this.head + drop < this.list.length && this.list[this.head + drop]!.until < oldest) drop++;
    if (drop > 0) this.dropFront(drop);
  }

  /** The newest snapshot with revision <= `revision`. */
  atOrBefore(revision: number): Snapshot<V> | undefined {
    const i = this.indexAfter(revision);
    return i > this.head ? this.list[i - 1] : undefined;
  }

  get size(): number {
    return this.list.length - this.head;
  }

  private dropFront(n: number): void {
    // Cleared so that the dropped trees can be collected before the next compaction.
    for (let end = this.head + n; this.head < end; this.head++) this.list[this.head] = undefined;
    if (this.head > 1024 && this.head * 2 > this.list.length) {
      this.list = this.list.slice(this.head);
      this.head = 0;
    }
  }

  /** The index (into `list`) of the first live snapshot with revision > `revision`. */
  private indexAfter(revision: number): number {
    let lo = this.head;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.list[mid]!.revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
