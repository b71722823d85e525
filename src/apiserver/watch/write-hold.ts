import type { Writable } from 'node:stream';

/**
 * The most bytes of frames one watch holds back to leave in one write: more and they are
 * written at once, whatever the hold says.
 */
export const COALESCE_BYTES = 64 * 1024;

/**
 * Paces the writes of busy watches, Nagle-like: a watch whose last write left less than
 * `intervalMs` ago holds its next frames until `intervalMs` after that write, and writes them
 * together. A frame after a quiet spell leaves in the turn it came (its tick's frames together),
 * so a sparse watch waits for nothing; a busy one writes at most 1000 / intervalMs times a second.
 *
 * Why: each write costs both ends per write, not per byte — a TLS record and a syscall here, a
 * wake-up, a socket read, a parser callback and a stream push in the client. At 5,000 idle nodes
 * the manager's Lease watch gets 500 renewals a second, each alone in the server's turn: one
 * frame per write cost the manager 87–147 µs of CPU a renewal, ten frames a write 51 µs
 * (docs/benchmarks.md, "The manager at idle nodes").
 *
 * One timer for the whole server, armed for the earliest held watch, never one per watch or event.
 * 0: no hold; a watch's frames leave at the end of their tick (process.nextTick), as before.
 */
export class WriteHold {
  private held: WritePacing[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (performance.now()). */
  private timerDue = Infinity;
  private readonly fire = () => this.onTimer();

  constructor(readonly intervalMs: number) {
    if (!(intervalMs >= 0) || !Number.isFinite(intervalMs)) throw new RangeError(`the watch write interval must be a non-negative number of ms, got ${intervalMs}`);
  }

  /** The pacing of one watch's writes. */
  pacing(): WritePacing {
    return new WritePacing(this);
  }

  /** Holds `pacing` until its due time. */
  hold(pacing: WritePacing): void {
    this.held.push(pacing);
    if (pacing.due < this.timerDue) this.arm(pacing.due);
  }

  private arm(due: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(this.fire, Math.max(0, due - performance.now()));
    // An open watch keeps the process alive by its socket; its hold must not.
    this.timer.unref();
  }

  private onTimer(): void {
    this.timer = undefined;
    this.timerDue = Infinity;
    // Node's timers count whole milliseconds and may fire a fraction early: a watch due within
    // the next millisecond goes now rather than re-arming the timer for a sliver.
    const now = performance.now() + 1;
    const list = this.held;
    this.held = [];
    let next = Infinity;
    for (const pacing of list) {
      if (!pacing.isHeld) continue;
      if (pacing.due <= now) pacing.release();
      else {
        this.held.push(pacing);
        if (pacing.due < next) next = pacing.due;
      }
    }
    if (next !== Infinity && next < this.timerDue) this.arm(next);
  }
}

/** A hold of interval 0: every watch's frames leave at the end of their tick. */
export const NO_HOLD = new WriteHold(0);

/**
 * One watch's side of the hold: when its held frames may leave. The encoder asks `schedule` for
 * a flush of what it holds and says `wrote` whenever it writes (a flush, a bookmark, an error).
 */
export class WritePacing {
  /** When the watch last wrote (performance.now()); a watch that never wrote is quiet. */
  private lastWrite = -Infinity;
  /** While false (the watch's replay), nothing is held: the replay and its end leave at once. */
  live = false;
  /** When a held flush is due; meaningful while `isHeld`. */
  due = 0;
  isHeld = false;
  private flush: ((out: Writable) => void) | undefined;
  private out: Writable | undefined;

  constructor(private readonly hold: WriteHold) {}

  /**
   * Runs `flush(out)` at the end of this tick when the watch was quiet (or holds nothing: a
   * replay, or no interval), else when the interval since its last write is over. The caller
   * schedules once per batch of frames and flushes through `flush` only.
   */
  schedule(flush: (out: Writable) => void, out: Writable): void {
    const interval = this.hold.intervalMs;
    if (interval === 0 || !this.live) return void process.nextTick(flush, out);
    const now = performance.now();
    if (now - this.lastWrite >= interval) {
      // Counted as written now: frames of the next turns are held even before this flush runs.
      this.lastWrite = now;
      return void process.nextTick(flush, out);
    }
    this.flush = flush;
    this.out = out;
    this.due = this.lastWrite + interval;
    this.isHeld = true;
    this.hold.hold(this);
  }

  /** The watch wrote now: what it held has left, and the interval counts from here. */
  wrote(): void {
    this.lastWrite = performance.now();
    this.isHeld = false;
    this.flush = undefined;
    this.out = undefined;
  }

  /** The interval is over: the held frames leave. */
  release(): void {
    const flush = this.flush;
    const out = this.out;
    this.isHeld = false;
    this.flush = undefined;
    this.out = undefined;
    if (flush !== undefined && out !== undefined) flush(out);
  }
}
