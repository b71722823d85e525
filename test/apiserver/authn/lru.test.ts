import { describe, expect, it } from 'vitest';
import { LruMap } from '../../../src/apiserver/authn/lru.js';

describe('LruMap', () => {
  it('holds at most its capacity and forgets the entry used longest ago', () => {
    const lru = new LruMap<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.size).toBe(2);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
  });

  it('refuses a capacity that is not positive', () => {
    expect(() => new LruMap(0)).toThrow(/positive/);
  });
});
