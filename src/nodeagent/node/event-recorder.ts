import { randomBytes } from 'node:crypto';
import { asyncScheduler, catchError, concatMap, defer, EMPTY, filter, Subject, type SchedulerLike, type Subscription } from 'rxjs';
import { rfc3339, type CoreEvent } from '../../api/index.js';
import { builtin, type Client } from '../../client/index.js';
import { rateLimit } from '../../../operators/index.js';

/** What an event is about. */
export interface InvolvedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string | undefined;
  readonly uid?: string | undefined;
}

export interface EventRecorderOptions {
  readonly client: Client;
  /** `--event-qps`; 0 uses 5. */
  readonly qps: number;
  /** `--event-burst`; 0 uses 10. */
  readonly burst: number;
  /** source.component and reportingComponent. */
  readonly component: string;
  /** source.host and reportingInstance: the node's name. */
  readonly host: string;
  /** Events waiting for a token or a write; more are dropped. Default 100. */
  readonly bufferSize?: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * Best-effort core/v1 Events: rate limited by `--event-qps`/`--event-burst`, written one at a
 * time, at most `bufferSize` waiting (the rest are dropped and counted, so a slow or unreachable
 * API server never makes the agent hold events without bound); a failed write is dropped too.
 */
export class EventRecorder {
  readonly #input = new Subject<CoreEvent>();
  readonly #subscription: Subscription;
  readonly #options: EventRecorderOptions;
  #pending = 0;
  #dropped = 0;
  #written = 0;

  constructor(options: EventRecorderOptions) {
    this.#options = options;
    const bufferSize = options.bufferSize ?? 100;
    this.#subscription = this.#input
      .pipe(
        filter(() => {
          if (this.#pending >= bufferSize) return (this.#dropped++, false);
          return (this.#pending++, true);
        }),
        rateLimit({ qps: options.qps === 0 ? 5 : options.qps, burst: options.burst === 0 ? 10 : options.burst, scheduler: options.scheduler ?? asyncScheduler }),
        concatMap((event) =>
          defer(async () => {
            try {
              await options.client.create(builtin.coreEvents, event);
              this.#written++;
            } catch {
              this.#dropped++;
            } finally {
              this.#pending--;
            }
          }).pipe(catchError(() => EMPTY)),
        ),
      )
      .subscribe();
  }

  /** Queues an event about `object` (in its namespace, or `default` for cluster-scoped objects). */
  record(object: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const now = (this.#options.scheduler ?? asyncScheduler).now();
    const at = rfc3339(now);
    const namespace = object.namespace ?? 'default';
    this.#input.next({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${object.name}.${randomBytes(8).toString('hex')}`, namespace },
      involvedObject: { ...object },
      reason,
      message,
      type,
      source: { component: this.#options.component, host: this.#options.host },
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
      reportingComponent: this.#options.component,
      reportingInstance: this.#options.host,
    });
  }

  /** Events written, dropped (buffer full or write failed) and waiting. */
  stats(): { written: number; dropped: number; pending: number } {
    return { written: this.#written, dropped: this.#dropped, pending: this.#pending };
  }

  /** Stops writing; waiting events are dropped. */
  stop(): void {
    this.#subscription.unsubscribe();
  }
}
