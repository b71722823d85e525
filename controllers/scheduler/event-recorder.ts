import type { Pod } from '../../src/api/index.js';

/** Sends one Event; rejects on failure. */
export type SendEvent = (pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string) => Promise<void>;

export interface EventRecorderOptions {
  /** Events waiting to be sent; beyond it new ones are dropped. Default 1 000 (client-go's broadcaster queue). */
  readonly buffer?: number;
  /** Events sent at once. Default 4. */
  readonly inFlight?: number;
}

/**
 * Events are best effort, as client-go's broadcaster makes them: queued in a bounded buffer and
 * sent a few at a time, so that a burst of ten thousand `Scheduled` Events never competes with
 * the bindings for more than a small share of the API server; when the buffer is full new Events
 * are dropped (and counted), never the scheduling.
 */
export class EventRecorder {
  readonly #send: SendEvent;
  readonly #buffer: number;
  readonly #inFlight: number;
  readonly #queue: (() => Promise<void>)[] = [];
  #head = 0;
  #running = 0;
  #closed = false;
  /** Events dropped because the buffer was full, and Events the API server refused. */
  dropped = 0;
  failed = 0;
  sent = 0;

  constructor(send: SendEvent, options: EventRecorderOptions = {}) {
    this.#send = send;
    this.#buffer = options.buffer ?? 1000;
    this.#inFlight = options.inFlight ?? 4;
  }

  record(pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string): void {
    if (this.#closed) return;
    if (this.#queue.length - this.#head >= this.#buffer) {
      this.dropped++;
      return;
    }
    this.#queue.push(() => this.#send(pod, type, reason, message));
    this.#pump();
  }

  /** Drops what is queued; Events in flight finish. */
  close(): void {
    this.#closed = true;
    this.#queue.length = 0;
    this.#head = 0;
  }

  #pump(): void {
    while (this.#running < this.#inFlight && this.#head < this.#queue.length) {
      const job = this.#queue[this.#head++]!;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue.splice(0, this.#head);
        this.#head = 0;
      }
      this.#running++;
      job().then(
        () => this.sent++,
        () => this.failed++,
      ).finally(() => {
        this.#running--;
        this.#pump();
      });
    }
  }
}
