import { KeyedHeap } from './heap.js';
import type { PodInfo } from './pod-info.js';

export interface SchedulingQueueOptions {
  /** Back-off after the first failed attempt, in ms; doubles per failure. Default 1 000 (kube-scheduler's podInitialBackoffSeconds). */
  readonly initialBackoffMs?: number;
  /** Longest back-off, in ms. Default 10 000 (podMaxBackoffSeconds). */
  readonly maxBackoffMs?: number;
  /** A pod left unschedulable this long is retried even if nothing changed, in ms. Default 300 000 (5 min). */
  readonly maxUnschedulableMs?: number;
  readonly now?: () => number;
}

/** A pod in the queue, with its scheduling history. */
export interface QueuedPod {
  info: PodInfo;
  /** Failed attempts so far. */
  attempts: number;
  /** When it (re-)entered the queue, ms. */
  timestamp: number;
  /** When its back-off ends, ms (0: none). */
  backoffUntil: number;
  readonly seq: number;
  /** `spec.priority` and `metadata.creationTimestamp`, read once: both are immutable, and the heap compares them often. */
  readonly priority: number;
  readonly created: string;
}

/** Higher priority first, then the older pod, then arrival order. */
function before(a: QueuedPod, b: QueuedPod): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.created !== b.created) return a.created < b.created;
  return a.seq < b.seq;
}

/**
 * kube-scheduler's three-part queue. `active` holds the pods to try, by priority then age.
 * A pod that fits nowhere waits in `unschedulable` until the cluster changes (a node added or
 * changed, a pod removed: `moveAllToActive`), or five minutes pass. A pod whose attempt failed
 * waits out an exponential back-off (1 s doubling to 10 s) in `backoff` before it is active again.
 * A change that arrives while a pod is being tried is not lost: the pod goes to back-off rather
 * than to `unschedulable` (the "move request cycle").
 */
export class SchedulingQueue {
  readonly #active = new KeyedHeap<QueuedPod>((q) => q.info.key, before);
  readonly #backoff = new KeyedHeap<QueuedPod>(
    (q) => q.info.key,
    (a, b) => a.backoffUntil < b.backoffUntil,
  );
  readonly #unschedulable = new Map<string, QueuedPod>();
  /** Pods popped and not yet settled (scheduled, or back in the queue). */
  readonly #inFlight = new Map<string, QueuedPod>();
  readonly #initial: number;
  readonly #max: number;
  readonly #maxUnschedulable: number;
  readonly #now: () => number;
  #seq = 0;
  #cycle = 0;
  #moveRequestCycle = -1;
  #waiters: ((pod: QueuedPod | undefined) => void)[] = [];
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  #flushTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: SchedulingQueueOptions = {}) {
    this.#initial = options.initialBackoffMs ?? 1000;
    this.#max = options.maxBackoffMs ?? 10_000;
    this.#maxUnschedulable = options.maxUnschedulableMs ?? 300_000;
    this.#now = options.now ?? Date.now;
    this.#flushTimer = setInterval(() => this.#flushUnschedulableLeftover(), Math.min(30_000, this.#maxUnschedulable));
    this.#flushTimer.unref();
  }

  /** Sizes of the three parts, for metrics and tests. */
  get sizes(): { active: number; backoff: number; unschedulable: number } {
    return { active: this.#active.size, backoff: this.#backoff.size, unschedulable: this.#unschedulable.size };
  }

  /** The scheduling cycle: how many pods have been popped. */
  get cycle(): number {
    return this.#cycle;
  }

  has(key: string): boolean {
    return this.#active.has(key) || this.#backoff.has(key) || this.#unschedulable.has(key) || this.#inFlight.has(key);
  }

  /**
   * A new pending pod (or a newer version of one): active at once, or its queue entry updated. A
   * parked unschedulable pod is tried again only when `mayHelp` (its spec or labels changed, not
   * just its status — which the scheduler itself writes).
   */
  add(info: PodInfo, mayHelp = true): void {
    if (this.#closed) return;
    const key = info.key;
    const inFlight = this.#inFlight.get(key);
    if (inFlight) {
      inFlight.info = info;
      return;
    }
    const waiting = this.#active.get(key) ?? this.#backoff.get(key);
    if (waiting) {
      waiting.info = info;
      (this.#active.has(key) ? this.#active : this.#backoff).push(waiting);
      return;
    }
    const parked = this.#unschedulable.get(key);
    if (parked && !mayHelp) {
      parked.info = info;
      return;
    }
    if (parked) {
      // The pod itself changed: it may fit now.
      this.#unschedulable.delete(key);
      parked.info = info;
      this.#requeue(parked);
      return;
    }
    this.#pushActive({
      info,
      attempts: 0,
      timestamp: this.#now(),
      backoffUntil: 0,
      seq: this.#seq++,
      priority: info.pod.spec.priority ?? 0,
      created: info.pod.metadata.creationTimestamp ?? '',
    });
  }

  delete(key: string): void {
    this.#active.delete(key);
    this.#backoff.delete(key);
    this.#unschedulable.delete(key);
    this.#inFlight.delete(key);
  }

  /** The next pod to try; waits while none is active. Resolves undefined once closed. */
  pop(): Promise<QueuedPod | undefined> {
    const next = this.#popNow();
    if (next || this.#closed) return Promise.resolve(next);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** The pod was placed (or given up on): forget its history. */
  done(key: string): void {
    this.#inFlight.delete(key);
  }

  /**
   * The pod fits nowhere (`unschedulable`) or its attempt failed for another reason (an API error):
   * it waits for a cluster change, or for its back-off. `cycle` is the cycle it was popped in.
   */
  requeueFailed(key: string, cycle: number, unschedulable: boolean): void {
    const queued = this.#inFlight.get(key);
    if (!queued || this.#closed) return;
    this.#inFlight.delete(key);
    queued.attempts++;
    queued.timestamp = this.#now();
    queued.backoffUntil = queued.timestamp + this.backoffFor(queued.attempts);
    if (unschedulable && this.#moveRequestCycle < cycle) this.#unschedulable.set(key, queued);
    else this.#toBackoff(queued);
  }

  /** The back-off after `attempts` failures. */
  backoffFor(attempts: number): number {
    return Math.min(this.#max, this.#initial * 2 ** Math.max(0, attempts - 1));
  }

  /**
   * Something changed that may let unschedulable pods fit (a node added or changed, a pod deleted):
   * every one of them goes back to active, or to back-off if its back-off is not over.
   */
  moveAllToActive(): void {
    this.#moveRequestCycle = this.#cycle;
    if (this.#unschedulable.size === 0) return;
    const parked = [...this.#unschedulable.values()];
    this.#unschedulable.clear();
    for (const queued of parked) this.#requeue(queued);
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    clearInterval(this.#flushTimer);
    for (const waiter of this.#waiters.splice(0)) waiter(undefined);
  }

  #popNow(): QueuedPod | undefined {
    this.#flushBackoff();
    const next = this.#active.pop();
    if (!next) return undefined;
    this.#cycle++;
    this.#inFlight.set(next.info.key, next);
    return next;
  }

  #requeue(queued: QueuedPod): void {
    if (queued.backoffUntil > this.#now()) this.#toBackoff(queued);
    else this.#pushActive(queued);
  }

  #pushActive(queued: QueuedPod): void {
    this.#active.push(queued);
    const waiter = this.#waiters.shift();
    if (waiter) waiter(this.#popNow());
  }

  #toBackoff(queued: QueuedPod): void {
    this.#backoff.push(queued);
    this.#arm();
  }

  #flushBackoff(): void {
    const now = this.#now();
    for (let next = this.#backoff.peek(); next && next.backoffUntil <= now; next = this.#backoff.peek()) {
      this.#backoff.pop();
      this.#active.push(next);
    }
  }

  /** One timer, set for the earliest back-off to end. */
  #arm(): void {
    const next = this.#backoff.peek();
    if (!next || this.#closed) return;
    if (next.backoffUntil >= this.#timerAt && this.#timer) return;
    clearTimeout(this.#timer);
    this.#timerAt = next.backoffUntil;
    this.#timer = setTimeout(() => this.#onTimer(), Math.max(0, next.backoffUntil - this.#now()));
    this.#timer.unref();
  }

  #onTimer(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    this.#flushBackoff();
    while (this.#waiters.length > 0 && this.#active.size > 0) this.#waiters.shift()!(this.#popNow());
    this.#arm();
  }

  #flushUnschedulableLeftover(): void {
    const now = this.#now();
    for (const [key, queued] of this.#unschedulable) {
      if (now - queued.timestamp < this.#maxUnschedulable) continue;
      this.#unschedulable.delete(key);
      this.#requeue(queued);
    }
  }
}
