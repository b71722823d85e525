import { Observable, type Subscriber } from 'rxjs';
import { StatusError, INITIAL_EVENTS_END_ANNOTATIONS, type KubeObject } from '../api/index.js';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import { DEFAULT_PAGE_SIZE, pages, type PageFetcher } from './list.js';
import { isExpired, isRecord, isTooLargeResourceVersion } from './status.js';
import type { Transport } from './transport.js';
import { watchEventBatches } from './watch-stream.js';
import { recordOf } from './lazy/cached-record.js';
import type { DecodeMode, DecodeStrategy } from './decode-strategy.js';

/**
 * What `watch$` emits. A list (first or re-) is framed by INIT … INIT_DONE, like kube-rs'
 * watcher events:
 *
 * - `INIT` — a list begins. Everything an earlier INIT began and no INIT_DONE finished is void.
 *   `reason`: `'start'` (the first list), `'expired'` (the server no longer had the version to
 *   resume from — HTTP 410 or an ERROR 410 event — so the watcher lists again: this is the
 *   restart signal), `'tooLarge'` (the server has not reached that version — a 504 "Too large
 *   resource version", HTTP or ERROR event: it restarted without its history, or lags — so the
 *   watcher lists its newest state, as client-go's reflector does: a restart signal too),
 *   `'retry'` (the previous list failed part way).
 * - `INIT_APPLY` — one object of that list.
 * - `INIT_DONE` — the list is complete at `resourceVersion`: the objects applied since INIT are
 *   the whole collection. A cache replaces its content with them now, in one step; anything it
 *   held that the list did not name is gone.
 * - `ADDED` / `MODIFIED` / `DELETED` — a change after the list (DELETED carries the last state).
 * - `BOOKMARK` — nothing changed up to `resourceVersion` (the watcher resumes from there).
 */
export type WatcherEvent<T extends KubeObject> =
  | { readonly type: 'INIT'; readonly reason: InitReason }
  | { readonly type: 'INIT_APPLY'; readonly object: T }
  | { readonly type: 'INIT_DONE'; readonly resourceVersion: string }
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T }
  | { readonly type: 'BOOKMARK'; readonly resourceVersion: string };

/** Why a list begins: see WatcherEvent. */
export type InitReason = 'start' | 'expired' | 'tooLarge' | 'retry';

export interface WatchOptions {
  /**
   * Metadata only: the list asks for PartialObjectMetadataList and the watch for
   * PartialObjectMetadata, so objects carry kind, apiVersion and metadata. Default false.
   */
  readonly metadataOnly?: boolean | undefined;
  /**
   * `'lazy'`: JSON objects arrive as lazy views — their text is kept and each field decoded on
   * first read (lazy/json-view.ts); other encodings are decoded as usual. `'protobuf'`: lists and
   * watches ask for protobuf (JSON for kinds without a message) and objects arrive as protobuf
   * views — their message bytes are kept and each field decoded on first read (lazy/proto-view.ts).
   * Default `'eager'` (plain objects, the caller's to change); informers default to the fastest
   * mode (see InformerOptions.decode).
   */
  readonly decode?: DecodeMode | undefined;
  /** A namespace; unset on a namespaced resource watches every namespace. */
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /**
   * Start watching just after this version, without a list (no INIT until a 410 forces one).
   * Default: unset, list first.
   */
  readonly resourceVersion?: string | undefined;
  /**
   * How the (re)list is made. `'list'` (default): paged GETs (`pageSize` each), then a watch from
   * the list's version. `'stream'`: one watch with `sendInitialEvents=true` — the objects arrive
   * as events and the end-of-initial-events bookmark ends the list, on the same connection
   * (needs bookmarks; a server that refuses it with a 400/422 is listed the `'list'` way).
   */
  readonly initialList?: 'list' | 'stream' | undefined;
  /**
   * The version the first list reads (`'list'` mode): `{ resourceVersion: '0' }` takes whatever
   * the server has in memory (cheapest), `{ resourceVersion: rv, resourceVersionMatch: 'Exact' }`
   * the state at `rv` (the watch then replays every change since). Default: the newest state.
   * It applies until a list has completed (a failed first list is retried with it); relists
   * after that always read the newest state.
   */
  readonly firstList?: { readonly resourceVersion: string; readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan' } | undefined;
  /** Objects per list page. Default 500. */
  readonly pageSize?: number | undefined;
  /** Ask for bookmarks (the watcher resumes from the newest version it saw). Default true. */
  readonly allowWatchBookmarks?: boolean | undefined;
  /** Emit BOOKMARK events (they are always used internally). Default true. */
  readonly emitBookmarks?: boolean | undefined;
  /**
   * `timeoutSeconds` of each watch request: a number, or a function drawn per request.
   * Default: random in [300, 600] s, as client-go's reflector.
   */
  readonly timeoutSeconds?: number | (() => number) | undefined;
  /**
   * A watch that delivers no byte for its timeout plus this is presumed dead, closed and
   * resumed. Default 5,000 ms.
   */
  readonly stallGraceMs?: number | undefined;
  /** Back-off between failed attempts. Default 800 ms doubling to 30 s, jitter 0.5. */
  readonly backoff?: BackoffOptions | undefined;
  /** Told of every failure the watcher recovers from (it never errors). */
  readonly onError?: ((error: unknown) => void) | undefined;
}

/** What the watcher needs from the client. */
export interface WatcherDeps<T extends KubeObject> {
  readonly transport: Transport;
  /** The collection's path (namespace applied). */
  readonly path: string;
  /** Fetches one list page, decoded as `decoding` says. */
  readonly listPage: PageFetcher<T>;
  /** How watch requests ask and read (the same strategy as `listPage`'s). */
  readonly decoding: DecodeStrategy;
}

/** The end-of-initial-events bookmark's annotation (svc's name, and Kubernetes'). */
export const INITIAL_EVENTS_END = INITIAL_EVENTS_END_ANNOTATIONS;

/**
 * The watcher's states (see docs/client.md for the diagram):
 *
 * - `listing` — the first list: INIT('start'), an INIT_APPLY per object, INIT_DONE(rv).
 *   Success → `watching(rv)`. Failure → back off → `listing` again (INIT('retry')).
 * - `watching(rv)` — one watch request from `rv`; every event and bookmark advances `rv`.
 *   The stream ends cleanly (server timeout) → `watching(rv)` again, at once if it delivered
 *   anything, after a back-off step if it did not. A network error, a stall (no byte for
 *   timeout + grace), any other error → back off → `watching(rv)`: resumed without a gap or a
 *   duplicate. HTTP 410 or an ERROR 410 event → `relisting`. A 504 "Too large resource version"
 *   (HTTP or ERROR event) → back off (at least its Retry-After) → `relisting` ('tooLarge'): the
 *   server will not serve that version soon, maybe never (a memory store that restarted).
 * - `relisting` — as `listing` with INIT('expired'); its objects replace the consumer's state at
 *   INIT_DONE. Then `watching(rv)`.
 *
 * In `'stream'` mode a (re)list is the start of a watch with sendInitialEvents: the state is
 * `listing`/`relisting` until the end-of-initial-events bookmark, then `watching` on the same
 * connection. The back-off resets after a complete list or a watch that delivered an event.
 * Unsubscribing aborts whatever request is open (its socket is closed) and stops the machine.
 */
type State =
  | { readonly name: 'listing' | 'relisting'; readonly reason: InitReason }
  | { readonly name: 'watching'; readonly resourceVersion: string };

export function watcher<T extends KubeObject>(deps: WatcherDeps<T>, options: WatchOptions = {}): Observable<WatcherEvent<T>> {
  return new Observable<WatcherEvent<T>>((subscriber) => {
    const abort = new AbortController();
    void run(deps, options, subscriber, abort.signal).catch((error: unknown) => {
      // run() handles every failure itself; this is a bug, and better loud than a silent stop.
      if (!abort.signal.aborted) subscriber.error(error);
    });
    return () => abort.abort();
  });
}

async function run<T extends KubeObject>(deps: WatcherDeps<T>, options: WatchOptions, out: Subscriber<WatcherEvent<T>>, signal: AbortSignal): Promise<void> {
  const backoff = new Backoff(options.backoff);
  let mode = options.initialList ?? 'list';
  /** Whether a list has completed: `firstList` applies until one has. */
  let listed = false;
  let state: State = options.resourceVersion !== undefined ? { name: 'watching', resourceVersion: options.resourceVersion } : { name: 'listing', reason: 'start' };
  const fail = async (error: unknown) => {
    if (error !== undefined) options.onError?.(error);
    // A server that says when to come back (429, 504 with Retry-After) is not asked sooner.
    const retryAfterMs = error instanceof StatusError ? (error.details?.retryAfterSeconds ?? 0) * 1000 : 0;
    await sleep(Math.max(backoff.next(), retryAfterMs), signal);
  };

  while (!signal.aborted) {
    const current: State = state;
    if (current.name !== 'watching' && mode === 'list') {
      out.next({ type: 'INIT', reason: current.reason });
      try {
        const rv = await listInto(deps, options, out, signal, listed ? undefined : options.firstList);
        if (signal.aborted) return;
        listed = true;
        out.next({ type: 'INIT_DONE', resourceVersion: rv });
        backoff.reset();
        state = { name: 'watching', resourceVersion: rv };
      } catch (error) {
        if (signal.aborted) return;
        await fail(error);
        state = { name: current.name, reason: isExpired(error) ? 'expired' : 'retry' };
      }
      continue;
    }

    // A watch request: from a version (`watching`), or a streamed list (`listing`/`relisting`).
    if (current.name !== 'watching') out.next({ type: 'INIT', reason: current.reason });
    const outcome = await watchOnce(deps, options, out, signal, current.name === 'watching' ? current.resourceVersion : undefined);
    if (signal.aborted) return;
    if (outcome.delivered) backoff.reset();
    switch (outcome.end) {
      case 'expired':
        if (outcome.error !== undefined) options.onError?.(outcome.error);
        state = { name: 'relisting', reason: 'expired' };
        break;
      case 'tooLarge':
        await fail(outcome.error);
        state = { name: 'relisting', reason: 'tooLarge' };
        break;
      case 'unsupported':
        // The server does not stream initial events: list the classic way, from now on.
        options.onError?.(outcome.error);
        mode = 'list';
        break;
      case 'closed':
      case 'failed':
        if (outcome.end === 'failed' || !outcome.delivered) await fail(outcome.error);
        state =
          outcome.resourceVersion !== undefined
            ? { name: 'watching', resourceVersion: outcome.resourceVersion }
            : { name: current.name === 'watching' ? 'relisting' : current.name, reason: 'retry' };
        break;
    }
  }
}

/** Pages of the list, each object as INIT_APPLY; resolves to the list's resourceVersion. */
async function listInto<T extends KubeObject>(
  deps: WatcherDeps<T>,
  options: WatchOptions,
  out: Subscriber<WatcherEvent<T>>,
  signal: AbortSignal,
  at: WatchOptions['firstList'],
): Promise<string> {
  let rv = '';
  const list = pages(
    deps.listPage,
    {
      ...(at ? { resourceVersion: at.resourceVersion, resourceVersionMatch: at.resourceVersionMatch } : {}),
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      ...(options.metadataOnly ? { metadataOnly: true } : {}),
      limit: options.pageSize ?? DEFAULT_PAGE_SIZE,
      // An expired token restarts the whole list, with a new INIT (run() does it).
      onExpired: 'fail',
    },
    signal,
  );
  for await (const page of list) {
    if (signal.aborted) break;
    rv = page.resourceVersion;
    for (const object of page.items) out.next({ type: 'INIT_APPLY', object });
  }
  return rv;
}

interface WatchOutcome {
  /** `closed`: the server ended the stream; `failed`: an error; `expired`: 410; `tooLarge`: 504 ResourceVersionTooLarge; `unsupported`: no streamed lists. */
  readonly end: 'closed' | 'failed' | 'expired' | 'tooLarge' | 'unsupported';
  /** The version to resume from; undefined when a streamed list did not finish. */
  readonly resourceVersion: string | undefined;
  /** Whether the request delivered at least one event. */
  readonly delivered: boolean;
  readonly error?: unknown;
}

function drawTimeout(options: WatchOptions): number {
  const t = options.timeoutSeconds;
  if (typeof t === 'number') return t;
  if (typeof t === 'function') return t();
  return 300 + Math.floor(Math.random() * 301);
}

/** One watch request. `from` undefined: a streamed list (sendInitialEvents) that goes on as a watch. */
async function watchOnce<T extends KubeObject>(
  deps: WatcherDeps<T>,
  options: WatchOptions,
  out: Subscriber<WatcherEvent<T>>,
  signal: AbortSignal,
  from: string | undefined,
): Promise<WatchOutcome> {
  const timeoutSeconds = drawTimeout(options);
  const bookmarks = options.allowWatchBookmarks ?? true;
  const emitBookmarks = options.emitBookmarks ?? true;
  const streaming = from === undefined;
  let initial = streaming;
  let rv = from;
  let delivered = false;
  const query = {
    watch: 1,
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    timeoutSeconds,
    allowWatchBookmarks: streaming || bookmarks ? true : undefined,
    ...(streaming ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', resourceVersion: '' } : { resourceVersion: from }),
  };
  try {
    const { accept, framerFor } = await deps.decoding.watch(options.metadataOnly === true);
    const request = { method: 'GET' as const, path: deps.path, query, ...(accept !== undefined ? { accept } : {}) };
    const batches = watchEventBatches<T>(deps.transport, request, timeoutSeconds * 1000 + (options.stallGraceMs ?? 5_000), signal, framerFor);
    for await (const batch of batches) {
      for (let i = 0; i < batch.length; i++) {
        const event = batch[i]!;
        // Live events of one chunk are handed over one microtask apart: a controller's async
        // reconciles that are done free their workers between two events, instead of every key
        // after the first few waiting for the whole chunk (bench:controller-latency).
        if (i > 0 && !initial) await undefined;
        if (signal.aborted) return { end: 'closed', resourceVersion: rv, delivered };
        if (event.type === 'ERROR') {
          const end = isExpired(event.error) ? 'expired' : isTooLargeResourceVersion(event.error) ? 'tooLarge' : 'failed';
          return { end, resourceVersion: initial ? undefined : rv, delivered, error: event.error };
        }
        delivered = true;
        // A lazy view's record knows its version: reading it through the view would decode metadata.
        const version = recordOf(event.object)?.resourceVersion ?? event.object.metadata?.resourceVersion;
        if (event.type === 'BOOKMARK') {
          if (version !== undefined) rv = version;
          if (initial && isInitialEventsEnd(event.object)) {
            initial = false;
            out.next({ type: 'INIT_DONE', resourceVersion: version ?? '' });
          } else if (!initial && emitBookmarks && version !== undefined) {
            out.next({ type: 'BOOKMARK', resourceVersion: version });
          }
          continue;
        }
        if (version !== undefined) rv = version;
        if (initial) {
          if (event.type === 'ADDED') out.next({ type: 'INIT_APPLY', object: event.object });
          // Only ADDED belongs to the initial state; anything else before the end bookmark is a server bug.
        } else {
          // `{type, object}` as decoded: the event is the frame, not a copy of it.
          out.next(event);
        }
      }
    }
    return { end: 'closed', resourceVersion: initial ? undefined : rv, delivered };
  } catch (error) {
    if (isExpired(error)) return { end: 'expired', resourceVersion: undefined, delivered, error };
    if (isTooLargeResourceVersion(error)) return { end: 'tooLarge', resourceVersion: undefined, delivered, error };
    if (streaming && !delivered && isRefusal(error)) return { end: 'unsupported', resourceVersion: undefined, delivered, error };
    return { end: 'failed', resourceVersion: initial ? undefined : rv, delivered, error };
  }
}

function isInitialEventsEnd(object: KubeObject): boolean {
  const annotations = object.metadata?.annotations;
  return isRecord(annotations) && INITIAL_EVENTS_END.some((key) => annotations[key] === 'true');
}

function isRefusal(error: unknown): boolean {
  return error instanceof StatusError && (error.code === 400 || error.code === 422);
}
