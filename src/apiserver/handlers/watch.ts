import type { ServerResponse } from 'node:http';
import { Observable, type Subscription } from 'rxjs';
import type { WebSocket } from 'ws';
import { tooOldResourceVersion, type ResourceType, type Status } from '../../api/index.js';
import { PLAIN_JSON, type Representation } from '../../encoding/index.js';
import { upgradeOf, type UpgradeConnection } from '../upgrade-routing.js';
import { acceptsEventStream, EVENT_STREAM, eventStreamFrameEncoder } from '../watch/event-stream-frames.js';
import { acceptWebSocket, isWebSocketUpgrade, webSocketWatchOutput, type WatchProtocol } from '../watch/websocket-watch.js';
import type { FrameEncoder } from '../watch/frames.js';
import { toStatusError } from '../status.js';
import type { Renamer } from '../upstream-names.js';
import { WatchExpiredError } from '../../watch-cache/index.js';
import { isPretty, renderOptionsOf, representationOf, SOCKET_BUDGET_BYTES, type HandlerContext } from '../request/index.js';
import { WatcherTooSlowError, boundedSink } from '../watch/bounded-sink.js';
import type { Frame } from '../watch/frames.js';
import { jsonFrameEncoder } from '../watch/json-frames.js';
import { watchParameters } from '../watch/parameters.js';
import { renderedFrameEncoder } from '../watch/rendered-frames.js';
import { watchSource } from '../watch/source.js';
import { until, withBookmarks } from '../watch/timers.js';
import { NO_HOLD } from '../watch/write-hold.js';

/**
 * GET on a collection with `watch=1`: the watch table's start point, then a chunked stream of
 * `{type, object}` lines. Everything that can be refused (bad parameters, a version the server
 * never reaches) is a plain Status before the 200; a failure after it is one ERROR event, after
 * which the stream ends.
 */
export async function watchObjects(ctx: HandlerContext): Promise<unknown> {
  const { type } = ctx;
  const upgrade = isWebSocketUpgrade(ctx.request.raw) ? upgradeOf(ctx.request) : undefined;
  const eventStream = upgrade === undefined && acceptsEventStream(ctx.request.headers.accept);
  // An event stream's data is JSON (EventSource cannot ask for anything else); the others negotiate.
  const rep = eventStream ? PLAIN_JSON : representationOf(ctx, 'watch', true);
  const lastEventId = eventStream ? headerValue(ctx.request.headers['last-event-id']) : undefined;
  const params = watchParameters(ctx, lastEventId);
  const source = await watchSource(ctx, params);

  const reply = ctx.reply;
  reply.hijack();
  // A busy watch's frames are held a few ms and leave together (write-hold.ts); its replay is not.
  const pacing = (ctx.watch.writeHold ?? NO_HOLD).pacing();
  const output = upgrade
    ? await openWebSocket(ctx, upgrade, rep)
    : eventStream
      ? openResponse(ctx, EVENT_STREAM, eventStreamFrameEncoder(type, pacing))
      : openResponse(ctx, rep.contentType, rep === PLAIN_JSON && !isPretty(ctx) ? jsonFrameEncoder(type, pacing) : renderedFrameEncoder(renderOptionsOf(ctx, rep), pacing));
  if (output === undefined) return reply;

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
          pacing.live = true;
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
  // An event stream always gets bookmarks: they move the browser's Last-Event-ID on a quiet watch.
  const bookmarks = params.bookmarks || eventStream;
  const bookmarked = bookmarks
    ? withBookmarks(events, ctx.watch.bookmarkIntervalMs, () => (live ? { type: 'BOOKMARK', revision: Math.max(last, source.cache.revision) } : undefined))
    : events;
  const frames = until(bookmarked, params.timeoutSeconds);

  let sink: Subscription | undefined;
  output.onClose(() => sink?.unsubscribe());
  const sent = ctx.watch.events?.(type);
  sink = boundedSink(frames, {
    limit: ctx.watch.bufferEvents,
    counts: () => live,
    write: (frame) => {
      sent?.inc();
      return output.write(frame);
    },
    onDrain: output.onDrain,
  }).subscribe({
    error: (error: unknown) => output.end(error instanceof WatcherTooSlowError ? undefined : errorStatus(error, type), error instanceof WatcherTooSlowError ? error : undefined),
    complete: () => output.end(),
  });
  return reply;
}

/** Where one watch's frames go, whatever carries them. */
interface WatchOutput {
  write(frame: Frame): boolean;
  onDrain(listener: () => void): () => void;
  /** Ends the watch: with the ERROR event of `status`, or closed for falling behind (`tooSlow`). */
  end(status?: Status, tooSlow?: WatcherTooSlowError): void;
  /** Calls `listener` when the client goes away first. */
  onClose(listener: () => void): void;
}

/** A chunked HTTP response (JSON lines, protobuf frames, …) or an event stream. */
function openResponse(ctx: HandlerContext, contentType: string, encoder: FrameEncoder): WatchOutput {
  const res = ctx.reply.raw;
  if (ctx.rename) renameWrites(res, ctx.rename);
  // An event stream must not be buffered by a proxy on the way (nginx reads X-Accel-Buffering).
  const streamHeaders = contentType === EVENT_STREAM ? { 'x-accel-buffering': 'no' } : {};
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache, private', ...streamHeaders, ...corsHeaders(ctx.reply) });
  res.flushHeaders();
  ctx.watch.open.add(res);
  const budget = ctx.watch.socketBudgetBytes ?? SOCKET_BUDGET_BYTES;
  return {
    // Full at the socket budget, not at the stream's high-water mark (SOCKET_BUDGET_BYTES says why).
    write: (frame) => encoder.write(res, frame) || res.writableLength < budget,
    onDrain: (listener) => {
      res.once('drain', listener);
      return () => res.off('drain', listener);
    },
    end: (status) => {
      ctx.watch.open.delete(res);
      encoder.flush?.(res);
      if (status !== undefined && !res.destroyed) encoder.error(res, status);
      res.end();
    },
    onClose: (listener) =>
      res.once('close', () => {
        ctx.watch.open.delete(res);
        listener();
      }),
  };
}

/**
 * A WebSocket: the handshake is completed here (ws answers a malformed one with a 400 and the
 * watch never starts: undefined). A watcher that falls behind is closed with 1008 and the reason.
 */
async function openWebSocket(ctx: HandlerContext, upgrade: UpgradeConnection, rep: Representation): Promise<WatchOutput | undefined> {
  let ws: WebSocket;
  try {
    ws = await acceptWebSocket(ctx.request.raw, upgrade.socket, upgrade.head);
  } catch {
    return undefined;
  }
  const protocol = ws.protocol === '' ? undefined : (ws.protocol as WatchProtocol);
  const output = webSocketWatchOutput(ws, ctx.type, protocol, rep === PLAIN_JSON && !isPretty(ctx) ? undefined : renderOptionsOf(ctx, rep));
  const closer = { end: () => ws.close(1001, 'the server is shutting down') };
  ctx.watch.open.add(closer);
  return {
    write: output.write,
    onDrain: output.onDrain,
    end: (status, tooSlow) => {
      ctx.watch.open.delete(closer);
      output.end(status, tooSlow ? 1008 : 1000, tooSlow ? tooSlow.message.slice(0, 120) : '');
    },
    onClose: (listener) =>
      ws.once('close', () => {
        ctx.watch.open.delete(closer);
        listener();
      }),
  };
}

/** The CORS headers the reply was given before it was hijacked (cors.ts sets them on the reply). */
function corsHeaders(reply: HandlerContext['reply']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (name.startsWith('access-control-') || name === 'vary') out[name] = String(value);
  return out;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
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
