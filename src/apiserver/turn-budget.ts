/**
 * A bound on how long one event-loop turn spends starting requests, so that watches get their
 * bytes out in every turn rather than once per long turn.
 *
 * Why: a TLS socket completes one write per loop turn (Node finishes a TLS write in the check
 * phase, after the poll phase). A watch whose socket already wrote in this turn holds every later
 * event of the turn until then, while the writes that made those events are answered at once on
 * idle sockets. A busy server reads every waiting request in one poll phase — with 128 patches in
 * flight, 100 ms of work — so an event committed early in it reached its watcher up to a turn
 * later than its write's answer: the dashboard's store → DOM p99 (docs/benchmarks.md, "A loop
 * turn's worth of requests"). With the budget, once the requests started in a turn have run for
 * `budgetMs`, further ones wait, in arrival order, for a later turn's check phase (after the
 * turn's TLS writes complete); there at most `budgetMs` of them start per turn.
 *
 * What it holds back is only the start of a request (its handler has not run); a request whose
 * handler awaits I/O goes on outside the budget. The bound is per turn, not a rate: a server with
 * spare time starts everything in the turn it arrives.
 */
export class TurnBudget {
  readonly #budgetMs: number;
  readonly #now: () => number;
  /** When this turn's first request started; undefined until one does (reset at the turn's check phase). */
  #turnStart: number | undefined;
  readonly #waiting: (() => void)[] = [];
  #head = 0;
  #drainScheduled = false;
  readonly #endTurn = (): void => {
    this.#turnStart = undefined;
  };
  readonly #drain = (): void => this.#runWaiting();

  /** `budgetMs` 0 (or less): no bound, every request starts at once. */
  constructor(budgetMs: number, now: () => number = () => performance.now()) {
    this.#budgetMs = budgetMs;
    this.#now = now;
  }

  /** Requests waiting for a later turn. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  /**
   * Whether a request may start now: this turn has time left and nothing waits before it. When
   * not, hand its start to `later`. (Two calls, not one taking a callback: the common answer,
   * yes, allocates nothing.)
   */
  startsNow(): boolean {
    return this.#budgetMs <= 0 || (this.waiting === 0 && this.#hasRoom());
  }

  /** Runs `start` in a later turn's check phase, after every start handed over before it. */
  later(start: () => void): void {
    this.#waiting.push(start);
    this.#scheduleDrain();
  }

  /** Runs `start` now if it may start now, else later. */
  run(start: () => void): void {
    if (this.startsNow()) start();
    else this.later(start);
  }

  #hasRoom(): boolean {
    if (this.#turnStart === undefined) {
      this.#openTurn();
      return true;
    }
    return this.#now() - this.#turnStart < this.#budgetMs;
  }

  /** This turn's first start: the budget counts from now until the turn's check phase. */
  #openTurn(): void {
    this.#turnStart = this.#now();
    setImmediate(this.#endTurn);
  }

  #scheduleDrain(): void {
    if (this.#drainScheduled) return;
    this.#drainScheduled = true;
    setImmediate(this.#drain);
  }

  /** In a check phase: starts waiting requests, first come first, until the turn's budget is spent. */
  #runWaiting(): void {
    this.#drainScheduled = false;
    const waiting = this.#waiting;
    // A check phase opens a budget of its own, and its first request always starts: the queue
    // moves every turn, however long one request takes.
    this.#openTurn();
    do {
      const start = waiting[this.#head]!;
      waiting[this.#head++] = NOOP;
      start();
    } while (this.#head < waiting.length && this.#hasRoom());
    if (this.#head === waiting.length) {
      waiting.length = 0;
      this.#head = 0;
      return;
    }
    // A queue that never empties (a server behind for minutes) drops its started front now and then.
    if (this.#head >= 1024 && this.#head * 2 >= waiting.length) {
      waiting.splice(0, this.#head);
      this.#head = 0;
    }
    this.#scheduleDrain();
  }
}

const NOOP = (): void => {};

/**
 * The server's budget by default (the app option `turnBudgetMs`; 0 turns it off): a watch's event
 * waits at most about this long (plus one request) for its socket's next write on a busy server,
 * while a turn still starts enough requests that the extra turns (an epoll wait and a check phase
 * each) cost little. It cut the dashboard's store → DOM p99 from 110 to 29 ms on a quiet machine
 * (docs/benchmarks.md). Its later starts answer in check phases, whose writes complete a turn
 * later; the connections Node pauses meanwhile are kept open by src/tls-connections/paused-tls-reads.ts.
 */
export const TURN_BUDGET_MS = 10;
