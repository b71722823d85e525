import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isStatusError, type CoreEvent } from '../api/index.js';
import type { Client } from './client.js';
import { builtin } from './resource.js';

/** What an Event is about (its `involvedObject`). */
export interface InvolvedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string | undefined;
  readonly uid?: string | undefined;
  readonly resourceVersion?: string | undefined;
  /** The part of the object (`spec.containers{app}`). */
  readonly fieldPath?: string | undefined;
}

export type EventType = 'Normal' | 'Warning';

/** Where a component records Events: the recorder itself, or one of its `forComponent` views. */
export interface EventSink {
  record(object: InvolvedObject, type: EventType, reason: string, message: string): void;
}

export interface EventRecorderOptions {
  readonly client: Client;
  /** `source.component` and `reportingComponent` (the reporting controller) of the Events. */
  readonly component: string;
  /** `source.host` and `reportingInstance`. Default: the host name. */
  readonly host?: string;
  /**
   * Waited for before each write: a token of a rate limit (the node agent's `--event-qps` /
   * `--event-burst` through `apiThrottle`, the scheduler's API bucket). Default: none.
   */
  readonly throttle?: (request: { readonly signal?: AbortSignal | undefined }) => Promise<void>;
  /** Events waiting to be written; beyond it new ones are dropped (and counted). Default 1 000. */
  readonly bufferSize?: number;
  /** Writes at once. Default 4. */
  readonly inFlight?: number;
  /** Distinct Events remembered for counting repeats (least recently seen forgotten first). Default 4 096. */
  readonly cacheSize?: number;
  /** The clock of the timestamps, ms. Default `Date.now` (tests pass a scheduler's `now`). */
  readonly now?: () => number;
}

/** One distinct Event (same source, object, type, reason and message) and where it stands. */
interface Series {
  readonly event: CoreEvent;
  count: number;
  lastTimestamp: string;
  /** Written to the server (so a repeat patches it). */
  created: boolean;
  /** A write of it is queued or running; repeats meanwhile only bump `count`. */
  busy: boolean;
  /** Repeated while a write ran: write again when it ends. */
  dirty: boolean;
}

/** client-go's defaults: 10 similar Events within 10 minutes, then they are combined. */
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const AGGREGATED = '(combined from similar events)';

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * core/v1 Events as client-go's broadcaster writes them, shared by every component of svc (the
 * controller runtime gives each controller a view named after it, the scheduler and the node
 * agent have one each):
 *
 * - **Best effort.** Events wait in a bounded buffer and are written a few at a time; when the
 *   buffer is full new ones are dropped (and counted), never the caller's work; a refused write
 *   is dropped too.
 * - **Repeats are counted, not multiplied** (client-go's EventCorrelator): an Event equal to one
 *   recorded before (same component, host, object, type, reason and message) is written as a
 *   patch of the first one's `count` and `lastTimestamp`. Repeats that arrive while a write of it
 *   is queued or running fold into that one write, so a reconcile that fails in a tight loop
 *   costs one Event object and a handful of patches. If that Event is gone (deleted, expired by
 *   the server's TTL) the next repeat creates it again with the count so far.
 * - **Similar Events are combined** (client-go's EventAggregator): once 10 Events about one
 *   object, of one type and reason, have differed only in their message within 10 minutes, the
 *   next ones become one Event "(combined from similar events): <message>", counted as repeats.
 */
export class EventRecorder implements EventSink {
  readonly #options: EventRecorderOptions;
  readonly #host: string;
  readonly #bufferSize: number;
  readonly #inFlight: number;
  readonly #cacheSize: number;
  readonly #now: () => number;
  /** Distinct Events by correlation key, in least-recently-seen order (a Map keeps insertion order). */
  readonly #series = new Map<string, Series>();
  /** Messages seen per object, type and reason (client-go's EventAggregator), least recently seen first. */
  readonly #similar = new Map<string, { readonly messages: Set<string>; readonly since: number }>();
  readonly #queue: Series[] = [];
  #head = 0;
  #running = 0;
  #stopped = false;
  #written = 0;
  #dropped = 0;

  constructor(options: EventRecorderOptions) {
    this.#options = options;
    this.#host = options.host ?? hostname();
    this.#bufferSize = options.bufferSize ?? 1000;
    this.#inFlight = options.inFlight ?? 4;
    this.#cacheSize = options.cacheSize ?? 4096;
    this.#now = options.now ?? Date.now;
  }

  /** Records an Event about `object`, in its namespace (`default` for cluster-scoped objects). */
  record(object: InvolvedObject, type: EventType, reason: string, message: string): void {
    this.#record(this.#options.component, object, type, reason, message);
  }

  /** The same recorder (buffer, writes, counting) reporting as `component`: a controller's name. */
  forComponent(component: string): EventSink {
    return { record: (object, type, reason, message) => this.#record(component, object, type, reason, message) };
  }

  /** Events written (creates and patches), dropped (buffer full or write refused) and waiting. */
  stats(): { written: number; dropped: number; pending: number } {
    return { written: this.#written, dropped: this.#dropped, pending: this.#queue.length - this.#head };
  }

  /** Stops writing: waiting Events are dropped, writes in flight finish. */
  stop(): void {
    this.#stopped = true;
    this.#queue.length = 0;
    this.#head = 0;
  }

  #record(component: string, object: InvolvedObject, type: EventType, reason: string, message: string): void {
    if (this.#stopped) return;
    const at = rfc3339(this.#now());
    const similarKey = JSON.stringify([component, this.#host, object.apiVersion, object.kind, object.namespace ?? '', object.name, object.uid ?? '', object.fieldPath ?? '', type, reason]);
    let key = JSON.stringify([similarKey, message]);
    if (this.#aggregated(similarKey, message)) {
      // One Event for the rest, counted: a ReplicaSet making 500 pods writes ~10 Events, not 500.
      message = `(combined from similar events): ${message}`;
      key = JSON.stringify([similarKey, AGGREGATED]);
    }
    const known = this.#series.get(key);
    if (known !== undefined) {
      this.#series.delete(key); // to the most recently seen end
      this.#series.set(key, known);
      known.count++;
      known.lastTimestamp = at;
      if (known.busy) known.dirty = true;
      else this.#enqueue(known);
      return;
    }
    const namespace = object.namespace || 'default';
    const series: Series = {
      event: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${object.name}.${randomBytes(8).toString('hex')}`, namespace },
        involvedObject: { ...object },
        type,
        reason,
        message,
        source: { component, host: this.#host },
        reportingComponent: component,
        reportingInstance: this.#host,
        firstTimestamp: at,
        lastTimestamp: at,
        count: 1,
      },
      count: 1,
      lastTimestamp: at,
      created: false,
      busy: false,
      dirty: false,
    };
    this.#series.set(key, series);
    if (this.#series.size > this.#cacheSize) this.#series.delete(this.#series.keys().next().value!);
    this.#enqueue(series);
  }

  /**
   * client-go's EventAggregator: once AGGREGATE_MAX_EVENTS Events about one object, of one type
   * and reason, differ only in their message within AGGREGATE_INTERVAL_MS, the others are folded
   * into one "(combined from similar events)" Event whose count rises.
   */
  #aggregated(similarKey: string, message: string): boolean {
    const now = this.#now();
    let group = this.#similar.get(similarKey);
    if (group === undefined || now - group.since > AGGREGATE_INTERVAL_MS) {
      group = { messages: new Set(), since: now };
    }
    this.#similar.delete(similarKey); // to the most recently seen end
    this.#similar.set(similarKey, group);
    if (this.#similar.size > this.#cacheSize) this.#similar.delete(this.#similar.keys().next().value!);
    group.messages.add(message);
    if (group.messages.size < AGGREGATE_MAX_EVENTS) return false;
    // The set never grows past the threshold.
    group.messages.delete(group.messages.values().next().value!);
    return true;
  }

  #enqueue(series: Series): void {
    if (this.#queue.length - this.#head >= this.#bufferSize) {
      this.#dropped++;
      return;
    }
    series.busy = true;
    this.#queue.push(series);
    this.#pump();
  }

  #pump(): void {
    while (!this.#stopped && this.#running < this.#inFlight && this.#head < this.#queue.length) {
      const series = this.#queue[this.#head++]!;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue.splice(0, this.#head);
        this.#head = 0;
      }
      this.#running++;
      this.#write(series)
        .then(
          () => this.#written++,
          () => this.#dropped++,
        )
        .finally(() => {
          this.#running--;
          series.busy = false;
          if (series.dirty) {
            series.dirty = false;
            if (!this.#stopped) this.#enqueue(series);
          }
          this.#pump();
        });
    }
  }

  async #write(series: Series): Promise<void> {
    await this.#options.throttle?.({});
    const { client } = this.#options;
    const { name, namespace } = series.event.metadata;
    if (series.created) {
      try {
        await client.patch(builtin.coreEvents, name!, { count: series.count, lastTimestamp: series.lastTimestamp }, { namespace, type: 'merge' });
        return;
      } catch (error) {
        if (!(isStatusError(error) && error.code === 404)) throw error;
        series.created = false; // gone (deleted, or expired by the event TTL): create it again
      }
    }
    await client.create(builtin.coreEvents, { ...series.event, count: series.count, lastTimestamp: series.lastTimestamp }, { namespace });
    series.created = true;
  }
}
