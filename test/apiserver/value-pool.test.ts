import { describe, expect, it } from 'vitest';
import { StringPool, ValuePool } from '../../src/apiserver/value-pool.js';

describe('value pools', () => {
  it('hand back the first value pooled under a key', () => {
    const pool = new ValuePool<{ n: number }>();
    const first = { n: 1 };
    expect(pool.share('a', first)).toBe(first);
    expect(pool.share('a', { n: 1 })).toBe(first);
  });

  it('stop growing at their capacity and then return values as given', () => {
    const pool = new ValuePool<object>(2);
    pool.share('a', {});
    pool.share('b', {});
    const late = {};
    expect(pool.share('c', late)).toBe(late);
    expect(pool.share('c', {})).not.toBe(late);
    expect(pool.size).toBe(2);
  });

  it('pool short strings only', () => {
    const pool = new StringPool();
    const long = 'x'.repeat(65);
    pool.intern(long);
    expect(pool.size).toBe(0);
    pool.intern('Running');
    expect(pool.size).toBe(1);
  });
});
