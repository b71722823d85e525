import { describe, expect, it } from 'vitest';
import { microTime, rfc3339 } from '../../src/api/index.js';

describe('timestamps', () => {
  const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

  it('Time is RFC 3339 in UTC to the second, milliseconds dropped', () => {
    expect(rfc3339(at)).toBe('2026-01-02T03:04:05Z');
    expect(rfc3339(new Date(at))).toBe('2026-01-02T03:04:05Z');
    expect(rfc3339(Date.UTC(2026, 0, 2, 3, 4, 5, 999))).toBe('2026-01-02T03:04:05Z');
  });

  it('MicroTime has six fractional digits', () => {
    expect(microTime(at)).toBe('2026-01-02T03:04:05.678000Z');
    expect(microTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 7)))).toBe('2026-01-02T03:04:05.007000Z');
  });

  it('both parse back to the same instant (to their precision)', () => {
    expect(Date.parse(rfc3339(at))).toBe(at - 678);
    expect(Date.parse(microTime(at))).toBe(at);
  });

  it('default to now', () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const stamp = Date.parse(rfc3339());
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(stamp).toBeLessThanOrEqual(Date.now());
  });
});
