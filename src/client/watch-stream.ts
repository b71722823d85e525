import type { KubeObject, StatusError } from '../api/index.js';
import { headerValue, type HttpRequest, type Transport } from './transport.js';
import { isRecord, statusErrorFrom } from './status.js';
import type { WatchFramer } from './wire-codec.js';

/** One event of one watch request, as the server framed it; an ERROR's Status is a StatusError. */
export type RawWatchEvent<T extends KubeObject> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T }
  | { readonly type: 'BOOKMARK'; readonly object: T }
  | { readonly type: 'ERROR'; readonly error: StatusError };

/** The watch delivered no byte for `stallMs`: the connection is presumed dead and was closed. */
export class WatchStalledError extends Error {
  override readonly name = 'WatchStalledError';
  constructor(readonly stallMs: number) {
    super(`the watch delivered nothing for ${stallMs} ms`);
  }
}

/** A frame that is not `{type, object}`. */
export class WatchFrameError extends Error {
  override readonly name = 'WatchFrameError';
}

const TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/**
 * The events of one watch request, decoded as they arrive, one array per chunk received (a
 * generator step per event would cost more than the event). The stream is closed (the socket
 * destroyed) when the generator finishes, throws, or when `signal` aborts — abort the signal to
 * hang up while the generator is waiting for data. If no byte arrives for `stallMs` (headers
 * included) it throws WatchStalledError.
 */
export async function* watchEventBatches<T extends KubeObject>(
  transport: Transport,
  request: HttpRequest,
  stallMs: number,
  signal?: AbortSignal,
  /** The framer for the response's Content-Type; default: the transport codec's. */
  framerFor?: (contentType: string | undefined) => WatchFramer,
): AsyncGenerator<RawWatchEvent<T>[]> {
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) abort.abort();
  let stalled = false;
  const timer = setTimeout(() => {
    stalled = true;
    abort.abort();
  }, stallMs);
  try {
    const res = await transport.stream({ ...request, signal: abort.signal });
    const contentType = headerValue(res.headers['content-type']);
    const framer = framerFor ? framerFor(contentType) : transport.codec.watchFramer(contentType);
    for await (const chunk of res.body) {
      timer.refresh();
      const frames = framer.push(chunk);
      if (frames.length > 0) yield frames.map((frame) => toEvent<T>(frame));
    }
  } catch (error) {
    if (stalled) throw new WatchStalledError(stallMs);
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    abort.abort();
  }
}

/** watchEventBatches, one event at a time. */
export async function* watchEvents<T extends KubeObject>(
  transport: Transport,
  request: HttpRequest,
  stallMs: number,
  signal?: AbortSignal,
): AsyncGenerator<RawWatchEvent<T>> {
  for await (const batch of watchEventBatches<T>(transport, request, stallMs, signal)) yield* batch;
}

function toEvent<T extends KubeObject>(frame: unknown): RawWatchEvent<T> {
  if (!isRecord(frame) || typeof frame['type'] !== 'string' || !TYPES.has(frame['type']) || !isRecord(frame['object'])) {
    throw new WatchFrameError(`not a watch event: ${JSON.stringify(frame).slice(0, 200)}`);
  }
  if (frame['type'] === 'ERROR') {
    const status = frame['object'];
    return { type: 'ERROR', error: statusErrorFrom(typeof status['code'] === 'number' ? status['code'] : 500, status) };
  }
  // The frame is already `{type, object}`: handed on as it is, without a copy.
  return frame as unknown as RawWatchEvent<T>;
}
