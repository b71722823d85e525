// A count of the asynchronous resources this process creates over a window (async_hooks' init:
// promises, ticks, immediates, timers, TLS and HTTP wraps), by type, and where a sample of the
// promises was made (the innermost frame of the creating stack outside Node's internals). A
// count, which the machine's load does not move: a request's async hops are its promises.
// Promise hooks slow every promise down, so a bench takes the census after its CPU windows.
import { createHook } from 'node:async_hooks';

export interface AsyncCensus {
  /** Resources created, by async_hooks type (PROMISE, TickObject, Immediate, Timeout, ...). */
  readonly byType: Record<string, number>;
  /** Sampled promises by the frame that made them, each count scaled back up by the sampling rate. */
  readonly promiseSites: readonly (readonly [site: string, count: number])[];
}

/** A creating stack's innermost frame that is not Node's own nor this file's. */
function siteOf(stack: string | undefined): string {
  const lines = (stack ?? '').split('\n').slice(1);
  for (const line of lines) {
    if (line.includes('node:internal') || line.includes('async-census') || line.includes('(<anonymous>)')) continue;
    const frame = line.trim().replace(/^at /, '');
    // `fn (file:///…/repo/src/x.ts:1:2)`: the repository-relative path.
    return frame.replace(/file:\/\/\S*?\/(src|bench|node_modules)\//, '$1/').replace(/\/work\/\S*?\/(src|bench|node_modules)\//, '$1/');
  }
  return '(internal)';
}

/** Starts counting; the returned function stops and hands over the census. */
export function startAsyncCensus(sampleEvery = 20): () => AsyncCensus {
  const byType = new Map<string, number>();
  const sites = new Map<string, number>();
  let promises = 0;
  const hook = createHook({
    init(_id, type) {
      byType.set(type, (byType.get(type) ?? 0) + 1);
      if (type !== 'PROMISE' || promises++ % sampleEvery !== 0) return;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 16;
      const site = siteOf(new Error().stack);
      Error.stackTraceLimit = limit;
      sites.set(site, (sites.get(site) ?? 0) + sampleEvery);
    },
  });
  hook.enable();
  return () => {
    hook.disable();
    return {
      byType: Object.fromEntries([...byType].sort((a, b) => b[1] - a[1])),
      promiseSites: [...sites].sort((a, b) => b[1] - a[1]),
    };
  };
}
