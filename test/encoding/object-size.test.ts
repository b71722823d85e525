import { describe, expect, it } from 'vitest';
import { jsonSizeUpTo, jsonTextLengthAtLeast } from '../../src/encoding/index.js';

const utf8Length = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('lower bounds of an object\'s stored JSON size', () => {
  const samples: unknown[] = [
    { a: 'b', list: [1, 2, { c: null, d: true }], nested: { e: 'üñí©ødé', f: -12.5e3 } },
    { labels: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, `v${i}`])) },
    [],
    'text with "quotes" and \\ backslashes\n',
  ];

  it('never exceed the compact JSON length, for decoded values and for text however it is spaced or escaped', () => {
    for (const value of samples) {
      const exact = utf8Length(value);
      expect(jsonSizeUpTo(value, Infinity)).toBeLessThanOrEqual(exact);
      expect(jsonTextLengthAtLeast(JSON.stringify(value))).toBeLessThanOrEqual(exact);
      expect(jsonTextLengthAtLeast(JSON.stringify(value, null, 4))).toBeLessThanOrEqual(exact);
    }
    // "\u0041" is six characters of text and one of JSON.
    expect(jsonTextLengthAtLeast('{"\\u0041":"\\u0042"}')).toBeLessThanOrEqual(utf8Length({ A: 'B' }));
  });

  it('are close to it for plain objects (within a few percent), so the early 413 is not far from the real one', () => {
    const value = samples[1];
    expect(jsonSizeUpTo(value, Infinity)).toBeGreaterThan(utf8Length(value) * 0.95);
    expect(jsonTextLengthAtLeast(JSON.stringify(value, null, 2))).toBe(utf8Length(value));
  });

  it('stop counting past the cap', () => {
    expect(jsonSizeUpTo({ a: 'x'.repeat(1000), b: 'y'.repeat(1000) }, 10)).toBeLessThan(1100);
  });
});
