// Shared by the control-loop suites: the context the controller manager would hand a loop, over a
// real client, and a bounded poll for end states (tests assert states, never timings).
import { Subject, type Subscription, type Observable } from 'rxjs';
import { DiscoveryCache, EventRecorder, InformerFactory, type Client, type DiscoveryCacheOptions } from '../../src/client/index.js';
import type { ControllerContext, ControllerResult } from '../../controllers/index.js';
import { WAIT_MS } from '../support/wait.js';

export interface LoopHarness {
  readonly ctx: ControllerContext;
  /** Every result the loop emitted so far. */
  readonly results: ControllerResult<unknown>[];
  run(loop: Observable<ControllerResult<unknown>>): void;
  stop(): void;
}

/** `discovery`: the context's discovery cache's options (a test that changes served types reads it often). */
export function loopHarness(client: Client, discovery: DiscoveryCacheOptions = {}): LoopHarness {
  const stop$ = new Subject<void>();
  const informers = new InformerFactory(client, { backoff: { initialMs: 5, maxMs: 50 } });
  const results: ControllerResult<unknown>[] = [];
  const subscriptions: Subscription[] = [];
  const events = new EventRecorder({ client, component: 'test-loop' });
  const discoveryCache = new DiscoveryCache(client, discovery);
  return {
    ctx: { name: 'test-loop', client, informers, discovery: discoveryCache, events, stop$, controllerDefaults: () => ({ drainTimeoutMs: 1_000 }) },
    results,
    run(loop) {
      subscriptions.push(loop.subscribe((r) => results.push(r)));
    },
    stop() {
      stop$.next();
      for (const s of subscriptions) s.unsubscribe();
      informers.stop();
      discoveryCache.stop();
      events.stop();
    },
  };
}

/** Resolves when `check` answers true; fails naming `what` after a generous guard. */
export async function eventually(check: () => Promise<boolean> | boolean, what: string, guardMs = WAIT_MS): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - start > guardMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether a request fails with a 404. */
export async function isGone(request: Promise<unknown>): Promise<boolean> {
  try {
    await request;
    return false;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return true;
    throw error;
  }
}
