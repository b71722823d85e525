import type { ServerResponse } from 'node:http';
import { Observable, concat, defer, type Subscription } from 'rxjs';
import { badRequest, booleanParam, tooOldResourceVersion, type ResourceType, type Status } from '../../api/index.js';
import { PLAIN_JSON, watchFrames, type JsonObject, type RenderOptions } from '../../encoding/index.js';
import type { KeyValue, Store } from '../../storage/index.js';
import { apiVersionOf, collectionPrefix } from '../objects.js';
import { planWatch } from '../read-semantics.js';
import type { ServedObject } from '../served-object.js';
import { toStatusError } from '../status.js';
import type { Renamer } from '../upstream-names.js';
import {
  WatchExpiredError,
  type CacheEvent,
  type CacheFilter,
  type CacheWatchOptions,
  type CachedObject,
  type WatchCache,
} from '../../watch-cache/index.js';
import { isPretty, queryParam, renderOptionsOf, representationOf, type HandlerContext } from '../request/index.js';
import { selectionOf, servedFilter } from '../request/index.js';
import { SlabPool } from '../watch/slab-pool.js';
import { WatcherTooSlowError, boundedSink } from '../watch/bounded-sink.js';

/**
 * The longest delay one Node timer can wait (2^31 - 1 ms, about 24.8 days). A longer one fires at
 * once, which would end a watch asking for a long timeoutSeconds as soon as it opened.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The annotation of the bookmark that ends a watch list's initial events. */
export const INITIAL_EVENTS_END = 'svc.io/initial-events-end';

/** What a watch writes: an event, or a bookmark at a revision. */
type Frame = CacheEvent<ServedObject> | { readonly type: 'BOOKMARK'; readonly revision: number; readonly initialEventsEnd?: boolean };

/**
 * GET on a collection with `watch=1`: the watch table's start point, then a chunked stream of
 * `{type, object}` lines. Everything that can be refused (bad parameters, a version the server
 * never reaches) is a plain Status before the 200; a failure after it is one ERROR event, after
 * which the stream ends.
 */
export async function watchObjects(ctx: HandlerContext): Promise<unknown> {
  const { type, info, store } = ctx;
  const rep = representationOf(ctx, 'watch', true);
  const encoder = rep === PLAIN_JSON && !isPretty(ctx) ? frameEncoder(type) : renderedFrameEncoder(renderOptionsOf(ctx, rep));
  const plan = planWatch({
    resourceVersion: queryParam(ctx, 'resourceVersion'),
    resourceVersionMatch: queryParam(ctx, 'resourceVersionMatch'),
    sendInitialEvents: queryParam(ctx, 'sendInitialEvents'),
  }, { watchList: ctx.watch.watchList });
  const bookmarks = booleanParam('allowWatchBookmarks', queryParam(ctx, 'allowWatchBookmarks'), false) === true;
  const timeoutSeconds = parseTimeout(queryParam(ctx, 'timeoutSeconds'), ctx.watch.minRequestTimeoutSeconds);
  const selection = selectionOf(ctx);
  const filter = servedFilter(ctx, selection);
  // A watch that selects the type's trigger field with `=` sees only the events of that value.
  const triggerField = ctx.caches.triggerField(type);
  const trigger = selection.fields?.requirements.find((r) => r.field === triggerField && r.operator === 'Equals')?.value;
  const prefix = collectionPrefix(store, type, info.namespace);
  const cache = ctx.caches.of(type);
  await cache.ready;

  // Where the events come from; `onInitialEventsEnd` and `onLive` are filled in per subscriber.
  let source: (hooks: Pick<CacheWatchOptions<ServedObject>, 'onInitialEventsEnd' | 'onLive'>) => Observable<CacheEvent<ServedObject>>;
  const base = { prefix, ...(filter ? { filter } : {}), ...(trigger !== undefined ? { trigger } : {}) };
  const { start, initialEvents } = plan;
  // The revision the client is known to hold from the start: no bookmark may go below it, though
  // the cache (which may not have seen that revision yet) can be behind it.
  let floor = 0;
  if (start.kind === 'Exact') {
    // A version the server has not reached (the client saw a store this server's has not caught
    // up with, or one that was lost in a restart) is waited for briefly, then refused with 504
    // "Too large resource version" (Retry-After, cause ResourceVersionTooLarge) rather than
    // held open forever: the client re-lists (client-go's reflector does), as Kubernetes.
    await ctx.caches.reach(type, start.revision);
    floor = start.revision;
    source = (hooks) => cache.watch({ ...base, ...hooks, fromRevision: start.revision });
  } else {
    const where = start.kind === 'Any' ? 'cache' : start.kind === 'MostRecent' && ctx.caches.inProcess && cache.following ? 'cache' : undefined;
    const must = where ? undefined : start.kind === 'NotOlderThan' ? start.revision : await ctx.caches.consistentRevision();
    const from = where ?? (await ctx.caches.reach(type, must!));
    if (from === 'cache') {
      source = (hooks) => cache.watch({ ...base, ...hooks, ...(initialEvents ? { initialEvents: true } : {}) });
    } else {
      // Only the store can show that state: list it there, then go on from the cache at its revision.
      const revision = await store.revision();
      floor = revision;
      source = (hooks) =>
        initialEvents
          ? concat(storeState(store, ctx.caches.decoderOf(type), prefix, revision, filter, hooks.onInitialEventsEnd), defer(() => cache.watch({ ...base, ...hooks, fromRevision: revision })))
          : cache.watch({ ...base, ...hooks, fromRevision: revision });
    }
  }

  const reply = ctx.reply;
  reply.hijack();
  const res = reply.raw;
  if (ctx.rename) renameWrites(res, ctx.rename);
  res.writeHead(200, { 'content-type': rep.contentType, 'cache-control': 'no-cache, private' });
  res.flushHeaders();
  ctx.watch.open.add(res);

  // Live: the watch follows the cache's events. What it was handed before is its replay (initial
  // state, history or store), which the sink holds without counting it against the buffer.
  let live = false;
  const frames = new Observable<Frame>((subscriber) => {
    let last = floor;
    const events = source({
      ...(plan.watchList && bookmarks ? { onInitialEventsEnd: (revision: number) => subscriber.next({ type: 'BOOKMARK', revision, initialEventsEnd: true }) } : {}),
      onLive: () => {
        live = true;
      },
    }).subscribe({
      next: (event) => {
        last = event.revision;
        subscriber.next(event);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
    const ticker = bookmarks
      ? setInterval(() => {
          if (live) subscriber.next({ type: 'BOOKMARK', revision: Math.max(last, cache.revision) });
        }, ctx.watch.bookmarkIntervalMs)
      : undefined;
    const deadline = setTimeout(() => subscriber.complete(), Math.min(timeoutSeconds * 1000, MAX_TIMER_MS));
    return () => {
      events.unsubscribe();
      clearInterval(ticker);
      clearTimeout(deadline);
    };
  });

  let sink: Subscription | undefined;
  const finish = (error?: unknown) => {
    ctx.watch.open.delete(res);
    encoder.flush?.(res);
    if (error !== undefined && !(error instanceof WatcherTooSlowError) && !res.destroyed) encoder.error(res, errorStatus(error, type));
    res.end();
  };
  res.once('close', () => {
    ctx.watch.open.delete(res);
    sink?.unsubscribe();
  });
  const sent = ctx.watch.events?.(type);
  sink = boundedSink(frames, {
    limit: ctx.watch.bufferEvents,
    counts: () => live,
    write: (frame) => {
      sent?.inc();
      return encoder.write(res, frame);
    },
    onDrain: (listener) => {
      res.once('drain', listener);
      return () => res.off('drain', listener);
    },
  }).subscribe({ error: finish, complete: () => finish() });
  return reply;
}

/** `timeoutSeconds`: a non-negative integer; unset or 0 picks the server's random timeout. */
function parseTimeout(text: string | undefined, minSeconds: number): number {
  if (text !== undefined && text !== '') {
    if (!/^\d{1,9}$/.test(text)) throw badRequest(`timeoutSeconds ${JSON.stringify(text)} is not valid: it must be a non-negative integer`);
    const seconds = Number(text);
    if (seconds > 0) return seconds;
  }
  return Math.round(minSeconds * (1 + Math.random()));
}

/**
 * The state a store list shows at `revision`, as synthetic ADDED events, then the end of the
 * initial events (for the bookmark). Used when the cache cannot prove it has that state.
 */
function storeState(
  store: Store,
  decode: (kv: KeyValue, revision: number) => ServedObject,
  prefix: string,
  revision: number,
  filter: CacheFilter<ServedObject> | undefined,
  onEnd: ((revision: number) => void) | undefined,
): Observable<CacheEvent<ServedObject>> {
  return new Observable<CacheEvent<ServedObject>>((subscriber) => {
    let stopped = false;
    void (async () => {
      let startKey: string | undefined;
      for (;;) {
        const page = await store.list(prefix, { revision, limit: 1_000, ...(startKey ? { startKey } : {}) });
        for (const kv of page.items) {
          if (stopped) return;
          const object = decode(kv, kv.modRevision);
          const cached: CachedObject<ServedObject> = { key: kv.key, revision: kv.modRevision, object, bytes: () => object.json };
          if (!filter || filter(cached)) subscriber.next({ type: 'ADDED', revision, object: cached });
        }
        const last = page.items[page.items.length - 1];
        if (page.remaining === 0 || !last) break;
        startKey = `${last.key}!`;
      }
      if (stopped) return;
      onEnd?.(revision);
      subscriber.complete();
    })().catch((error: unknown) => subscriber.error(error));
    return () => {
      stopped = true;
    };
  });
}

const HEADS = {
  ADDED: Buffer.from('{"type":"ADDED","object":'),
  MODIFIED: Buffer.from('{"type":"MODIFIED","object":'),
  DELETED: Buffer.from('{"type":"DELETED","object":'),
} as const;
const TAIL = Buffer.from('}\n');

/** Writes one watch's frames, and the ERROR event that ends a failed one. */
interface FrameEncoder {
  write(res: ServerResponse, frame: Frame): boolean;
  error(res: ServerResponse, status: Status): void;
  /** Writes what the encoder holds back, before the response ends. */
  flush?(res: ServerResponse): void;
}

/**
 * Writes frames as JSON lines. An event is three writes under one cork (head, the version's
 * shared bytes, tail): the object's bytes are never copied per watcher.
 */
function frameEncoder(type: ResourceType): FrameEncoder {
  const envelope = `"kind":${JSON.stringify(type.kind)},"apiVersion":${JSON.stringify(apiVersionOf(type))}`;
  const write = (res: ServerResponse, frame: Frame): boolean => {
    if (frame.type === 'BOOKMARK') {
      const annotations = frame.initialEventsEnd ? `,"annotations":{${JSON.stringify(INITIAL_EVENTS_END)}:"true"}` : '';
      return res.write(`{"type":"BOOKMARK","object":{${envelope},"metadata":{"resourceVersion":"${frame.revision}"${annotations}}}}\n`);
    }
    res.cork();
    res.write(HEADS[frame.type]);
    res.write(frame.object.object.json);
    const more = res.write(TAIL);
    process.nextTick(() => res.uncork());
    return more;
  };
  return { write, error: (res, status) => void res.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`) };
}

/**
 * Frames in any other representation (a view, pretty JSON, protobuf, CBOR): each event's object
 * is decoded from the version's JSON bytes and encoded per watcher.
 */
function renderedFrameEncoder(options: RenderOptions): FrameEncoder {
  const frames = watchFrames(options);
  // The frames of one tick leave as one write: one HTTP chunk (and TLS record) for a burst of
  // events instead of one each — the client handles each chunk with a parser callback and a
  // stream push, so a replay costs it per burst, not per event. At most COALESCE_BYTES wait.
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let scheduled = false;
  const flush = (res: ServerResponse): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const parts = pending;
    const bytes = pendingBytes;
    pending = [];
    pendingBytes = 0;
    if (res.writableEnded || res.destroyed) return;
    // One frame is written as it is (its bytes are shared, cached per version); several are
    // joined in a reused buffer (slab-pool.ts says why).
    if (parts.length === 1) res.write(parts[0]!);
    else WRITE_SLABS.writeJoined(parts, bytes, (chunk, done) => res.write(chunk, done));
  };
  const write = (res: ServerResponse, bytes: Uint8Array): boolean => {
    pending.push(bytes);
    pendingBytes += bytes.length;
    if (pendingBytes >= COALESCE_BYTES) flush(res);
    else if (!scheduled) {
      scheduled = true;
      process.nextTick(flush, res);
    }
    // Backpressure as the socket reports it: a flush that could not be written says so here.
    return !res.writableNeedDrain;
  };
  return {
    write: (res, frame) => {
      if (frame.type === 'BOOKMARK') return write(res, frames.bookmark(frame.revision, frame.initialEventsEnd ? { [INITIAL_EVENTS_END]: 'true' } : undefined));
      return write(res, frames.event(frame.type, frame.object.object.json));
    },
    error: (res, status) => {
      flush(res);
      res.write(frames.error(status as unknown as JsonObject));
    },
    flush,
  };
}

/** The most bytes of rendered frames held back to leave in one write. */
const COALESCE_BYTES = 64 * 1024;

/**
 * The buffers those writes are joined in, shared by every watch of the process: a flush holds
 * under COALESCE_BYTES plus one frame, so most fit in twice that.
 */
const WRITE_SLABS = new SlabPool(2 * COALESCE_BYTES, 16);

/** The Status of the ERROR event that ends a failed watch: 410 Expired for a start the server no longer holds. */
function errorStatus(error: unknown, type: ResourceType): Status {
  const status =
    error instanceof WatchExpiredError
      ? tooOldResourceVersion(error.requested, error.oldest)
      : toStatusError(error, { group: type.group, resource: type.resource });
  return status.toStatus();
}

/**
 * A watch on an upstream group name: each write (a whole frame, or a whole part of one: the
 * group name is never split between writes) is stamped with that name before it leaves. Costs a
 * copy per event and watcher, paid only by such watches.
 */
function renameWrites(res: ServerResponse, rename: Renamer): void {
  const write = res.write.bind(res) as (chunk: Uint8Array) => boolean;
  res.write = ((chunk: string | Uint8Array) => write(rename(typeof chunk === 'string' ? Buffer.from(chunk) : chunk))) as typeof res.write;
}
