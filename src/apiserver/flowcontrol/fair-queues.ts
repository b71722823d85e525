/**
 * A concurrency limit shared fairly between flows (API Priority and Fairness' core, without its
 * shuffle sharding: every flow gets its own queue). `seats` requests run at once; a request that
 * finds them all taken waits in its flow's queue, which holds at most `queueLength`; the next
 * free seat goes to the flow after the one served last, round robin. So a client with a hundred
 * requests waiting delays another client's one request by at most one request of its own,
 * however long its queue: the noisy flow fills its queue and is refused, the quiet one is served.
 *
 * `seats` 0 means no limit: every request is admitted at once (and counted).
 */

/** Why a request was refused; the `reason` label of `apiserver_flowcontrol_rejected_requests_total`. */
export type RejectReason = 'queue-full' | 'time-out';

export interface FairQueuesOptions {
  readonly seats: number;
  /** Requests one flow may have waiting (upstream's queueLengthLimit, 50). */
  readonly queueLength: number;
  /** How long a request may wait in its queue before it is refused. */
  readonly queueWaitMs: number;
}

/** What a waiting request is told: `admit` when it gets a seat (false: it is gone, give the seat on), `reject` when it waited too long. */
export interface Waiter {
  admit(): boolean;
  reject(reason: RejectReason): void;
}

interface Queued {
  readonly waiter: Waiter;
  readonly flow: string;
  timer: NodeJS.Timeout | undefined;
}

export class FairQueues {
  readonly #options: FairQueuesOptions;
  #busy = 0;
  #waiting = 0;
  /** Flows with waiting requests, in round-robin order: the first is served next. */
  readonly #flows = new Map<string, Queued[]>();
  /** Called once per refused request. */
  onReject: ((reason: RejectReason) => void) | undefined;

  constructor(options: FairQueuesOptions) {
    this.#options = options;
  }

  /** Requests holding a seat. */
  get busy(): number {
    return this.#busy;
  }

  /** Requests waiting in the queues. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Takes a seat if one is free and nobody waits for it; the caller must `release` it when the request ends. */
  tryAdmit(): boolean {
    const seats = this.#options.seats;
    if (seats !== 0 && (this.#busy >= seats || this.#waiting > 0)) return false;
    this.#busy++;
    return true;
  }

  /**
   * Queues a request of `flow` that `tryAdmit` refused: `waiter.admit` is called when it gets a
   * seat, `waiter.reject` when it waited too long. False (and nothing queued) when its flow's queue
   * is full.
   */
  enqueue(flow: string, waiter: Waiter): boolean {
    let queue = this.#flows.get(flow);
    if (queue !== undefined && queue.length >= this.#options.queueLength) {
      this.onReject?.('queue-full');
      return false;
    }
    if (queue === undefined) {
      queue = [];
      this.#flows.set(flow, queue);
    }
    const queued: Queued = { waiter, flow, timer: undefined };
    queued.timer = setTimeout(() => this.#timeOut(queued), this.#options.queueWaitMs);
    queue.push(queued);
    this.#waiting++;
    return true;
  }

  /** Gives back the seat of an admitted request, to the next flow in turn. A listener: `this` is bound. */
  readonly release = (): void => {
    this.#busy--;
    this.#dispatch();
  };

  #dispatch(): void {
    const seats = this.#options.seats;
    while (this.#busy < seats && this.#waiting > 0) {
      const [flow, queue] = this.#flows.entries().next().value as [string, Queued[]];
      const next = queue.shift()!;
      this.#waiting--;
      // Round robin: the flow just served goes to the back of the line.
      this.#flows.delete(flow);
      if (queue.length > 0) this.#flows.set(flow, queue);
      clearTimeout(next.timer);
      this.#busy++;
      if (!next.waiter.admit()) this.#busy--;
    }
  }

  #timeOut(queued: Queued): void {
    const queue = this.#flows.get(queued.flow);
    const at = queue?.indexOf(queued) ?? -1;
    if (queue === undefined || at < 0) return;
    queue.splice(at, 1);
    if (queue.length === 0) this.#flows.delete(queued.flow);
    this.#waiting--;
    this.onReject?.('time-out');
    queued.waiter.reject('time-out');
  }
}
