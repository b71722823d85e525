// The recorder's spam filter (src/client/event-spam-filter.ts): a token bucket per source and
// object, client-go's EventSourceObjectSpamFilter.
import { describe, expect, it } from 'vitest';
import { EventSpamFilter } from '../../src/client/event-spam-filter.js';

describe('EventSpamFilter', () => {
  it('lets `burst` through at once, then one per refill period, never more than `burst` saved up', () => {
    const filter = new EventSpamFilter({ burst: 3, refillMs: 1_000, size: 10 });
    expect([0, 0, 0, 0].map((t) => filter.allow('a', t))).toEqual([true, true, true, false]);
    expect(filter.allow('a', 999)).toBe(false);
    expect(filter.allow('a', 1_000)).toBe(true);
    expect(filter.allow('a', 1_500)).toBe(false);
    expect(filter.allow('a', 2_000)).toBe(true);
    // An hour idle fills the bucket, to `burst` only.
    expect([1, 2, 3, 4].map(() => filter.allow('a', 3_602_000))).toEqual([true, true, true, false]);
    // Another key has its own bucket.
    expect(filter.allow('b', 3_602_000)).toBe(true);
  });

  it('a clock that steps back refills nothing', () => {
    const filter = new EventSpamFilter({ burst: 1, refillMs: 1_000, size: 10 });
    expect(filter.allow('a', 10_000)).toBe(true);
    expect(filter.allow('a', 5_000)).toBe(false);
    expect(filter.allow('a', 10_500)).toBe(false);
    expect(filter.allow('a', 11_000)).toBe(true);
  });

  it('keeps the buckets of the `size` keys seen last: a forgotten one starts full', () => {
    const filter = new EventSpamFilter({ burst: 1, refillMs: 60_000, size: 2 });
    expect(filter.allow('a', 0)).toBe(true);
    expect(filter.allow('b', 0)).toBe(true);
    expect(filter.allow('a', 0)).toBe(false); // a is now the most recently seen
    expect(filter.allow('c', 0)).toBe(true); // b, the least recently seen, is forgotten
    expect(filter.allow('a', 0)).toBe(false);
    expect(filter.allow('b', 0)).toBe(true);
  });
});
