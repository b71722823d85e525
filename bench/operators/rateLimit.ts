// rateLimit: per-item cost of passing items through a token bucket that always has a token
// (the common case: the limit is not reached), against the same bucket arithmetic inline.
import { rateLimit } from '../../operators/index.js';
import { fromArray, perItem, sink, type PerItemRow } from './support.js';

export async function run(): Promise<PerItemRow[]> {
  const N = 10_000;
  const items = Array.from({ length: N }, (_, i) => i);
  const source = fromArray(items);
  const limited = source.pipe(rateLimit({ qps: 1e12, burst: 1e9 }));
  return [
    await perItem(
      'rateLimit',
      'token available (qps 1e12)',
      N,
      () => limited.subscribe(sink),
      () => {
        const interval = 1000 / 1e12;
        const tolerance = (1e9 - 1) * interval;
        let fullAt = -Infinity;
        for (const item of items) {
          const now = Date.now();
          const full = fullAt > now ? fullAt : now;
          const at = full - tolerance;
          fullAt = full + interval;
          if (at <= now) sink(item);
        }
      },
    ),
  ];
}
