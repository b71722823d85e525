import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isStatusError, rfc3339, type CoreEvent } from '../api/index.js';
import type { Client } from './client.js';
import type { DecodeMode } from './decode-strategy.js';
import { EventSpamFilter } from './event-spam-filter.js';
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
  /** Distinct Events remembered for counting repeats (least recently seen forgotten first), and sources and objects for the spam filter. Default 4 096. */
  readonly cacheSize?: number;
  /** Events one source may write about one object at once (client-go's spam filter). Default 25. */
  readonly spamBurst?: number;
  /** Then one more per this many ms. Default 300 000 (5 minutes). */
  readonly spamRefillMs?: number;
  /** The clock of the timestamps, ms. Default `Date.now` (tests pass a scheduler's `now`). */
  readonly now?: () => number;
}

/** One distinct Event (same source, object, type, reason and message) and where it stands. */
interface Series {
  readonly event: CoreEvent;
  count: number;
  lastTimestamp: string;
  message: string;
  /** Written to the server (so a repeat patches it). */
  created: boolean;
  /** A write of it is queued or running; repeats meanwhile only bump `count`. */
  busy: boolean;
  /** Repeated while a write ran: write again when it ends. */
  dirty: boolean;
}

/** Different messages of one object, type and reason within the window before they are combined (client-go's). */
const SIMILAR_LIMIT = 10;
const SIMILAR_WINDOW_MS = 10 * 60_000;
const COMBINED_PREFIX = '(combined from similar events): ';

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
 * - **Similar Events are combined** (client-go's EventAggregator): from the tenth different
 *   message of one object, type and reason within ten minutes, Events of that object, type and
 *   reason are counted on one Event whose message is `(combined from similar events): ` and the
 *   latest message, so a message with a changing detail (a time, a resource version) cannot flood
 *   the server either.
 * - **A source writes at most 25 Events about one object at once, then one per 5 minutes**
 *   (client-go's EventSourceObjectSpamFilter, after the two above): a ReplicaSet making 500 pods
 *   writes 25 requests about itself, not one per pod; a repeat held back is still counted, and the
 *   next write of that Event carries the count.
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
  /** Per object, type and reason: the different messages seen in the current window. */
  readonly #similar = new Map<string, { since: number; messages: Set<string> }>();
  readonly #spam: EventSpamFilter;
  readonly #queue: Series[] = [];
  #head = 0;
  #running = 0;
  #stopped = false;
  #written = 0;
  #dropped = 0;
  #filtered = 0;
  /**
   * The Events' answers are not read: views over them, in the encoding the client speaks (a JSON
   * client's are not asked for in protobuf, which the server would encode for them), so nothing of
   * them is decoded — a pod's start writes three Events.
   */
  readonly #answers: DecodeMode;

  constructor(options: EventRecorderOptions) {
    this.#options = options;
    this.#answers = options.client.transport.codec.mediaType.includes('protobuf') ? 'protobuf' : 'lazy';
    this.#host = options.host ?? hostname();
    this.#bufferSize = options.bufferSize ?? 1000;
    this.#inFlight = options.inFlight ?? 4;
    this.#cacheSize = options.cacheSize ?? 4096;
    this.#now = options.now ?? Date.now;
    this.#spam = new EventSpamFilter({ burst: options.spamBurst ?? 25, refillMs: options.spamRefillMs ?? 300_000, size: this.#cacheSize });
  }

  /** Records an Event about `object`, in its namespace (`default` for cluster-scoped objects). */
  record(object: InvolvedObject, type: EventType, reason: string, message: string): void {
    this.#record(this.#options.component, object, type, reason, message);
  }

  /** The same recorder (buffer, writes, counting) reporting as `component`: a controller's name. */
  forComponent(component: string): EventSink {
    return { record: (object, type, reason, message) => this.#record(component, object, type, reason, message) };
  }

  /**
   * Events written (creates and patches), dropped (buffer full or write refused), waiting, and
   * held back by the spam filter (counted, not written).
   */
  stats(): { written: number; dropped: number; pending: number; filtered: number } {
    return { written: this.#written, dropped: this.#dropped, pending: this.#queue.length - this.#head, filtered: this.#filtered };
  }

  /** Stops writing: waiting Events are dropped, writes in flight finish. */
  stop(): void {
    this.#stopped = true;
    this.#queue.length = 0;
    this.#head = 0;
  }

  /**
   * The message an Event is written with, and the key it is counted under: its own, or — once
   * `SIMILAR_LIMIT` different messages of one object, type and reason came within
   * `SIMILAR_WINDOW_MS` — the one combined Event of all of them (client-go's EventAggregator).
   */
  #correlate(similarKey: string, message: string, nowMs: number): { key: string; message: string } {
    let similar = this.#similar.get(similarKey);
    if (similar === undefined || nowMs - similar.since > SIMILAR_WINDOW_MS) {
      similar = { since: nowMs, messages: new Set() };
      this.#similar.set(similarKey, similar);
      if (this.#similar.size > this.#cacheSize) this.#similar.delete(this.#similar.keys().next().value!);
    }
    similar.messages.add(message);
    // JSON holds no raw newline: the similar key alone (the combined Event's) is no message's key.
    if (similar.messages.size < SIMILAR_LIMIT) return { key: `${similarKey}\n${message}`, message };
    similar.messages.delete(similar.messages.values().next().value!); // the set stays bounded
    return { key: similarKey, message: `${COMBINED_PREFIX}${message}` };
  }

  #record(component: string, object: InvolvedObject, type: EventType, reason: string, original: string): void {
    if (this.#stopped) return;
    const nowMs = this.#now();
    const at = rfc3339(nowMs);
    const sourceAndObject = JSON.stringify([component, this.#host, object.apiVersion, object.kind, object.namespace ?? '', object.name, object.uid ?? '']);
    const similarKey = `${sourceAndObject}${JSON.stringify([object.fieldPath ?? '', type, reason])}`;
    const { key, message } = this.#correlate(similarKey, original, nowMs);
    // As client-go's correlator: counted first, then held back if the source wrote too much about the object.
    const allowed = this.#spam.allow(sourceAndObject, nowMs);
    if (!allowed) this.#filtered++;
    const known = this.#series.get(key);
    if (known !== undefined) {
      this.#series.delete(key); // to the most recently seen end
      this.#series.set(key, known);
      known.count++;
      known.lastTimestamp = at;
      known.message = message; // a combined Event shows the latest of its messages
      if (!allowed) return;
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
      message,
      created: false,
      busy: false,
      dirty: false,
    };
    this.#series.set(key, series);
    if (this.#series.size > this.#cacheSize) this.#series.delete(this.#series.keys().next().value!);
    // Held back, it is created by the next repeat that is let through, with the count so far.
    if (allowed) this.#enqueue(series);
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
        await client.patch(builtin.coreEvents, name!, { count: series.count, lastTimestamp: series.lastTimestamp, message: series.message }, { namespace, type: 'merge', decode: this.#answers });
        return;
      } catch (error) {
        if (!(isStatusError(error) && error.code === 404)) throw error;
        series.created = false; // gone (deleted, or expired by the event TTL): create it again
      }
    }
    await client.create(builtin.coreEvents, { ...series.event, count: series.count, lastTimestamp: series.lastTimestamp, message: series.message }, { namespace, decode: this.#answers });
    series.created = true;
  }
}
