// The review caches of delegated authentication and authorization (src/serving), shared by the
// controller manager's and scheduler's secure ports and the node agent's server.
import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../src/serving/index.js';

describe('TtlCache', () => {
  it('forgets an entry once its TTL has passed on the given clock, and caches nothing at TTL 0', () => {
    let now = 1000;
    const cache = new TtlCache<string>(2, () => now);
    cache.set('a', 'x', 100);
    now += 99;
    expect(cache.get('a')).toBe('x');
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', 'y', 0);
    expect(cache.get('b')).toBeUndefined();
  });
  it('drops the oldest entry past its bound', () => {
    const cache = new TtlCache<number>(2, () => 0);
    cache.set('a', 1, 10);
    cache.set('b', 2, 10);
    cache.set('c', 3, 10);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 2, 3]);
    expect(cache.size).toBe(2);
  });
});
