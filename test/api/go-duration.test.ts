// Go's duration notation, parsed and printed once for the flags (milliseconds) and the protobuf
// codec (meta/v1 Duration, nanoseconds): the spellings Go's time package reads and writes.
import { describe, expect, it } from 'vitest';
import { formatGoDuration, parseGoDuration } from '../../src/api/index.js';

describe('Go durations', () => {
  it('parse every unit, fractions, signs and sequences to nanoseconds', () => {
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('300ns')).toBe(300);
    expect(parseGoDuration('1.5us')).toBe(1_500);
    expect(parseGoDuration('2\u00b5s')).toBe(2_000);
    expect(parseGoDuration('2\u03bcs')).toBe(2_000);
    expect(parseGoDuration('250ms')).toBe(250e6);
    expect(parseGoDuration('.5s')).toBe(500e6);
    expect(parseGoDuration('1h2m3.5s')).toBe(3_723.5e9);
    expect(parseGoDuration('-1m')).toBe(-60e9);
    expect(parseGoDuration('+90s')).toBe(90e9);
  });

  it('refuse what Go refuses: no unit, unknown units, empty, stray text', () => {
    for (const bad of ['', '5', '1d', 's', '1s ', 'abc', '-', '1.s2', '10mm']) expect(parseGoDuration(bad)).toBeUndefined();
  });

  it('print as time.Duration.String() does, and read back what they print', () => {
    const cases: [number, string][] = [
      [0, '0s'],
      [500, '500ns'],
      [1_500, '1.5\u00b5s'],
      [500e6, '500ms'],
      [1.5e9, '1.5s'],
      [60e9, '1m0s'],
      [3_723.5e9, '1h2m3.5s'],
      [-90e9, '-1m30s'],
    ];
    for (const [nanos, text] of cases) {
      expect(formatGoDuration(nanos)).toBe(text);
      expect(parseGoDuration(text)).toBe(nanos);
    }
  });
});
