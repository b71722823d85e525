import type { ServerResponse } from 'node:http';
import { Observable, type Subscription } from 'rxjs';
import { tooOldResourceVersion, type ResourceType, type Status } from '../../api/index.js';
import { PLAIN_JSON } from '../../encoding/index.js';
import { toStatusError } from '../status.js';
import type { Renamer } from '../upstream-names.js';
import { WatchExpiredError } from '../../watch-cache/index.js';
import { isPretty, renderOptionsOf, representationOf, type HandlerContext } from '../request/index.js';
import { WatcherTooSlowError, boundedSink } from '../watch/bounded-sink.js';
import type { Frame } from '../watch/frames.js';
import { jsonFrameEncoder } from '../watch/json-frames.js';
import { watchParameters } from '../watch/parameters.js';
import { renderedFrameEncoder } from '../watch/rendered-frames.js';
import { watchSource } from '../watch/source.js';
import { until, withBookmarks } from '../watch/timers.js';

/**
 * GET on a collection with `watch=1`: the watch table's start point, then a chunked stream of
 * `{type, object}` lines. Everything that can be refused (bad parameters, a version the server
 * never reaches) is a plain Status before the 200; a failure after it is one ERROR event, after
 * which the stream ends.
 */
export async function watchObjects(ctx: HandlerContext): Promise<unknown> {
  const { type } = ctx;
  const rep = representationOf(ctx, 'watch', true);
  const encoder = rep === PLAIN_JSON && !isPretty(ctx) ? jsonFrameEncoder(type) : renderedFrameEncoder(renderOptionsOf(ctx, rep));
  const params = watchParameters(ctx);
  const source = await watchSource(ctx, params);

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
  let last = source.floor;
  const events = new Observable<Frame>((subscriber) =>
    source
      .events({
        ...(params.plan.watchList && params.bookmarks
          ? { onInitialEventsEnd: (revision: number) => subscriber.next({ type: 'BOOKMARK', revision, initialEventsEnd: true }) }
          : {}),
        onLive: () => {
          live = true;
        },
      })
      .subscribe({
        next: (event) => {
          last = event.revision;
          subscriber.next(event);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
  );
  const bookmarked = params.bookmarks
    ? withBookmarks(events, ctx.watch.bookmarkIntervalMs, () => (live ? { type: 'BOOKMARK', revision: Math.max(last, source.cache.revision) } : undefined))
    : events;
  const frames = until(bookmarked, params.timeoutSeconds);

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
