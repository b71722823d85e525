import type { HandlerContext } from './context.js';

/** Bodies from this size on make a write long enough (tens of milliseconds and up) to be cut. */
export const LARGE_BODY_BYTES = 64 * 1024;

/**
 * Lets the requests that arrived meanwhile run, between the stages of a write whose body is large.
 * A write of tens of thousands of fields costs its whole CPU time on the event loop (about 25 µs a
 * field); cut in stages, a `/healthz` or a GET waits for one stage rather than the whole write. A
 * write is a compare-and-swap on its resourceVersion, so what runs in between cannot corrupt it.
 * Small writes, nearly all of them, do not yield: for them the answer is undefined, not a promise,
 * so that a hot path (a Lease renewal) may skip the await (`const turn = yieldIfLarge(ctx); if
 * (turn) await turn;`) instead of paying a trip through the microtask queue for nothing.
 */
export function yieldIfLarge(ctx: Pick<HandlerContext, 'request'>): Promise<void> | undefined {
  const body: unknown = ctx.request.body;
  return body instanceof Uint8Array && body.length >= LARGE_BODY_BYTES ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined;
}
