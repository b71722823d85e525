import type { SequencedEvent } from './events.js';

interface Entry<T> extends SequencedEvent<T> {
  /** When the cache applied it (the `now` clock). */
  readonly at: number;
}

/**
 * The recent events, oldest first, bounded by age and by count. `floor` says how far back the
 * history reaches: it holds every event the cache applied with revision > floor, so a watch from
 * any revision >= floor replays from here. Sequence numbers are contiguous between resets, which
 * lets a replay walk by seq while new events are appended (and old ones evicted) underneath it.
 */
export class History<T> {
  private entries: (Entry<T> | undefined)[] = [];
  private head = 0;
  private firstSeq = 0;
  floor: number;

  constructor(
    private readonly windowMs: number,
    private readonly max: number,
    floor = 0,
  ) {
    this.floor = floor;
  }

  /** Forgets everything: the history now starts after `floor` (a relist at that revision). */
  reset(floor: number): void {
    this.entries = [];
    this.head = 0;
    this.floor = floor;
  }

  append(entry: SequencedEvent<T>, now: number): void {
    if (this.size === 0) this.firstSeq = entry.seq;
    this.entries.push({ seq: entry.seq, event: entry.event, at: now });
    this.evict(now);
  }

  /** Drops events older than the window, and the oldest beyond the count bound. */
  evict(now: number): void {
    const oldest = now - this.windowMs;
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head]!;
      if (this.size <= this.max && entry.at >= oldest) break;
      this.floor = entry.event.revision;
      this.entries[this.head++] = undefined;
      this.firstSeq++;
    }
    // Reclaim the dead prefix once it outweighs the live part: amortised O(1) per event.
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  get size(): number {
    return this.entries.length - this.head;
  }

  /** The entry with this seq, or undefined when it was evicted or never held. */
  bySeq(seq: number): Entry<T> | undefined {
    if (seq < this.firstSeq) return undefined;
    return this.entries[this.head + seq - this.firstSeq];
  }

  /** The seq of the first held event with revision > `revision`; undefined when none is held. */
  seqAfter(revision: number): number | undefined {
    let lo = this.head;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid]!.event.revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.entries.length ? this.entries[lo]!.seq : undefined;
  }

  /** Held events with revision in (after, upTo], oldest first. */
  *between(after: number, upTo: number): Generator<Entry<T>> {
    const first = this.seqAfter(after);
    if (first === undefined) return;
    for (let seq = first; ; seq++) {
      const entry = this.bySeq(seq);
      if (!entry || entry.event.revision > upTo) return;
      yield entry;
    }
  }
}
