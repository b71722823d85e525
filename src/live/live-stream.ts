import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { map, timer, type Observable, type OperatorFunction } from 'rxjs';
import type { WebSocket, WebSocketServer } from 'ws';
import { boundedSink, routeUpgrades, upgradeOf, WatcherTooSlowError, type UpgradeConnection } from '../apiserver/index.js';

/** One item of a live stream as it leaves: an SSE event (`event`, `id`, `data`) or one WebSocket message. */
export interface LiveFrame {
  readonly event: string;
  /** The SSE `id` (a browser sends the last one back as `Last-Event-ID` when it reconnects). */
  readonly id?: string | undefined;
  /** Sent as JSON. */
  readonly data: unknown;
}

export interface LiveStreamOptions<T> {
  /** How an item becomes a frame. Default: `{ event: 'message', data: item }`. */
  readonly frame?: ((item: T) => LiveFrame) | undefined;
  /**
   * How many frames may wait for a slow client before it is dropped (with the reason: an SSE
   * `ERROR` event, or WebSocket close 1008). Default 1,000. Nothing is ever buffered past it.
   */
  readonly limit?: number | undefined;
  /** An SSE comment every this many ms, so proxies keep an idle stream open. Default 15,000; 0: none. */
  readonly heartbeatMs?: number | undefined;
}

const defaultFrame = (item: unknown): LiveFrame => ({ event: 'message', data: item });

/** One frame as Server-Sent Events text. A JSON text has no newline, so `data` is one line. */
export function eventStreamText(frame: LiveFrame): string {
  const id = frame.id === undefined ? '' : `id: ${frame.id}\n`;
  return `event: ${frame.event}\n${id}data: ${JSON.stringify(frame.data)}\n\n`;
}

/**
 * Items as Server-Sent Events text, one string per item: for a server of your own, the bytes
 * to write for each item of any stream (an informer's `events$`, a controller's results).
 *
 * ```
 * source:  --a-----b--|
 * result:  --A-----B--|     A = "event: …\nid: …\ndata: {…}\n\n"
 * ```
 */
export function toEventStream<T>(frame: (item: T) => LiveFrame = defaultFrame): OperatorFunction<T, string> {
  return map((item) => eventStreamText(frame(item)));
}

/** A change as an informer reports it, in the shape `informerFrame` reads. */
interface ObjectChange {
  readonly type: string;
  readonly object: { readonly metadata?: { readonly resourceVersion?: string | undefined } | undefined };
}

const CHANGE_EVENTS: Readonly<Record<string, string>> = { added: 'ADDED', updated: 'MODIFIED', deleted: 'DELETED', resync: 'RESYNC' };

/**
 * An informer's event as a frame named like a watch event (`ADDED`, `MODIFIED`, `DELETED`,
 * `RESYNC`) with the object's resourceVersion as its id: a page can apply it as it applies a
 * watch. (An informer's `events$` starts with `added` for everything already cached.)
 */
export function informerFrame(change: ObjectChange): LiveFrame {
  return { event: CHANGE_EVENTS[change.type] ?? change.type.toUpperCase(), id: change.object.metadata?.resourceVersion, data: change.object };
}

let wss: Promise<WebSocketServer> | undefined;
const webSocketServer = (): Promise<WebSocketServer> =>
  (wss ??= import('ws').then(({ WebSocketServer }) => new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload: 4 * 1024 })));

/** Bytes a WebSocket client may have unsent before it counts as full. */
const WS_HIGH_WATER = 64 * 1024;

/** Where frames go, whatever carries them. */
interface LiveOutput {
  write(frame: LiveFrame): boolean;
  onDrain(listener: () => void): () => void;
  end(tooSlow?: WatcherTooSlowError, error?: unknown): void;
  onClose(listener: () => void): void;
}

/**
 * Serves `source` to one client, live: as Server-Sent Events, or as WebSocket messages
 * (`{"type":event,"id":id,"object":data}`, one per frame) when the request is an upgrade and
 * the app routes upgrades (`liveRoute` sets that up). The source is subscribed per client and
 * unsubscribed when the client goes. Back-pressure is the socket's: a client that lets more
 * than `limit` frames wait is dropped with the reason, never buffered without bound.
 */
export async function serveLiveStream<T>(request: FastifyRequest, reply: FastifyReply, source: Observable<T>, options: LiveStreamOptions<T> = {}): Promise<FastifyReply> {
  const upgrade = request.headers.upgrade?.toLowerCase() === 'websocket' ? upgradeOf(request) : undefined;
  reply.hijack();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = String(value);
  const output = upgrade ? await webSocketOutput(request, upgrade) : eventStreamOutput(reply.raw, headers, options.heartbeatMs ?? 15_000);
  if (output === undefined) return reply;
  pipeToOutput(source, output, options);
  return reply;
}

/**
 * Serves `source` as Server-Sent Events on a plain Node response (HTTP/1.1 or HTTP/2, as a
 * daemon's secure port answers without Fastify), with the same bound as `serveLiveStream`: a
 * client that lets more than `limit` frames wait gets an `ERROR` event and the end.
 */
export function serveEventStream<T>(res: ServerResponse | Http2ServerResponse, source: Observable<T>, options: LiveStreamOptions<T> = {}): void {
  pipeToOutput(source, eventStreamOutput(res, {}, options.heartbeatMs ?? 15_000), options);
}

function pipeToOutput<T>(source: Observable<T>, output: LiveOutput, options: LiveStreamOptions<T>): void {
  const frameOf = options.frame ?? (defaultFrame as (item: T) => LiveFrame);
  const sink = boundedSink(source.pipe(map(frameOf)), { limit: options.limit ?? 1_000, write: output.write, onDrain: output.onDrain }).subscribe({
    error: (error: unknown) => output.end(error instanceof WatcherTooSlowError ? error : undefined, error instanceof WatcherTooSlowError ? undefined : error),
    complete: () => output.end(),
  });
  output.onClose(() => sink.unsubscribe());
}

function eventStreamOutput(raw: ServerResponse | Http2ServerResponse, extraHeaders: Record<string, string>, heartbeatMs: number): LiveOutput {
  const headers: Record<string, string> = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, private', 'x-accel-buffering': 'no', ...extraHeaders };
  // Both kinds of response write, drain and close alike; typed as one so the calls below resolve.
  const res = raw as ServerResponse;
  res.writeHead(200, headers);
  // The headers leave now, not with the first event: a quiet stream is open at once.
  if (typeof (raw as { flushHeaders?: unknown }).flushHeaders === 'function') res.flushHeaders();
  else res.write(': open\n\n');
  // Heartbeats go around the bounded sink: a comment is tiny, and a full socket skips them.
  const beats = heartbeatMs > 0 ? timer(heartbeatMs, heartbeatMs).subscribe(() => void (res.writableNeedDrain || res.write(': ping\n\n'))) : undefined;
  return {
    write: (frame) => res.write(eventStreamText(frame)),
    onDrain: (listener) => {
      res.once('drain', listener);
      return () => res.off('drain', listener);
    },
    end: (tooSlow, error) => {
      beats?.unsubscribe();
      if (!res.destroyed) {
        if (tooSlow) res.write(eventStreamText({ event: 'ERROR', data: { reason: 'TooSlow', message: tooSlow.message } }));
        else if (error !== undefined) res.write(eventStreamText({ event: 'ERROR', data: { reason: 'SourceFailed', message: error instanceof Error ? error.message : String(error) } }));
      }
      res.end();
    },
    onClose: (listener) =>
      res.once('close', () => {
        beats?.unsubscribe();
        listener();
      }),
  };
}

async function webSocketOutput(request: FastifyRequest, upgrade: UpgradeConnection): Promise<LiveOutput | undefined> {
  const server = await webSocketServer();
  let ws: WebSocket;
  try {
    ws = await new Promise<WebSocket>((resolve, reject) => {
      if (upgrade.socket.destroyed) return reject(new Error('the client went away'));
      const onClose = (): void => reject(new Error('the WebSocket handshake failed'));
      upgrade.socket.once('close', onClose);
      server.handleUpgrade(request.raw, upgrade.socket, upgrade.head, (socket) => {
        upgrade.socket.off('close', onClose);
        resolve(socket);
      });
    });
  } catch {
    return undefined;
  }
  let unsent = 0;
  let listeners: (() => void)[] = [];
  const sent = (bytes: number) => (): void => {
    unsent -= bytes;
    if (unsent <= WS_HIGH_WATER / 2 && listeners.length > 0) {
      const waiting = listeners;
      listeners = [];
      for (const listener of waiting) listener();
    }
  };
  return {
    write: (frame) => {
      if (ws.readyState !== ws.OPEN) return false;
      const text = JSON.stringify({ type: frame.event, ...(frame.id !== undefined ? { id: frame.id } : {}), object: frame.data });
      unsent += text.length;
      ws.send(text, sent(text.length));
      return unsent < WS_HIGH_WATER;
    },
    onDrain: (listener) => {
      listeners.push(listener);
      return () => {
        listeners = listeners.filter((l) => l !== listener);
      };
    },
    end: (tooSlow, error) => {
      if (ws.readyState !== ws.OPEN) return;
      if (tooSlow) ws.close(1008, tooSlow.message.slice(0, 120));
      else if (error !== undefined) ws.close(1011, (error instanceof Error ? error.message : String(error)).slice(0, 120));
      else ws.close(1000);
    },
    onClose: (listener) => ws.once('close', listener),
  };
}

/**
 * A GET route on `app` that serves `sourceOf(request)` live to each client, as SSE or over a
 * WebSocket (upgrades on the app's server are routed through it: the app's hooks, such as
 * authentication, run for them too).
 *
 * @example
 * const pods = factory.informer(builtin.pods);
 * liveRoute(app, '/live/pods', () => pods.events$, { frame: informerFrame });
 */
export function liveRoute<T>(app: FastifyInstance, path: string, sourceOf: (request: FastifyRequest) => Observable<T>, options: LiveStreamOptions<T> = {}): void {
  routeUpgradesOnce(app);
  app.get(path, (request, reply) => serveLiveStream(request, reply, sourceOf(request), options));
}

const routed = new WeakSet<FastifyInstance>();
function routeUpgradesOnce(app: FastifyInstance): void {
  if (routed.has(app)) return;
  routed.add(app);
  routeUpgrades(app);
}
