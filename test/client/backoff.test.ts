import { describe, expect, it } from 'vitest';
import { Backoff, jsonCodec } from '../../src/client/index.js';

describe('Backoff', () => {
  it('doubles from 800 ms to a 30 s cap, with up to 50 % jitter on top, and resets', () => {
    const low = new Backoff({}, () => 0);
    expect(Array.from({ length: 8 }, () => low.next())).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    low.reset();
    expect(low.next()).toBe(800);
    const high = new Backoff({}, () => 1);
    expect([high.next(), high.next()]).toEqual([1200, 2400]);
  });
});

describe('jsonCodec.watchFramer', () => {
  it('splits lines across chunks, multi-byte characters included', () => {
    const framer = jsonCodec.watchFramer();
    const bytes = Buffer.from('{"type":"ADDED","object":{"v":"é✓"}}\n{"type":"BOOKMARK","object":{}}\n');
    const out = [];
    for (let i = 0; i < bytes.length; i += 3) out.push(...framer.push(bytes.subarray(i, i + 3)));
    expect(out).toEqual([
      { type: 'ADDED', object: { v: 'é✓' } },
      { type: 'BOOKMARK', object: {} },
    ]);
  });
});
