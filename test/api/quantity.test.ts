import { describe, expect, it } from 'vitest';
import { formatMilliQuantity, milliQuantity, milliValue, quantityBytes, quantityValue } from '../../src/api/index.js';
import { formatMilliShort } from '../../src/browser-safe/index.js';

describe('quantityValue', () => {
  it.each([
    ['500m', 0.5],
    ['2', 2],
    ['1Gi', 2 ** 30],
    ['1.5Ki', 1536],
    ['3k', 3000],
    ['2e3', 2000],
    ['1E-3', 0.001],
    ['100n', 1e-7],
    ['-1', -1],
    [' 4M ', 4e6],
    [7, 7],
  ] as const)('reads %j as %d', (text, value) => {
    expect(quantityValue(text)).toBeCloseTo(value, 12);
  });

  it.each(['', 'lots', '1.5.2', '1Kb', '1ki', 'Gi', '1 Gi', Number.NaN, Infinity, null, undefined, {}])('refuses %j', (text) => {
    expect(quantityValue(text)).toBeUndefined();
  });
});

describe('milliQuantity and formatMilliQuantity (admission)', () => {
  it.each([
    ['100m', 100],
    ['1', 1000],
    ['1.5', 1500],
    ['1Ki', 1024_000],
    ['1Gi', 2 ** 30 * 1000],
    ['2k', 2_000_000],
    ['1e3', 1_000_000],
    [3, 3000],
  ])('reads %j as %d milli-units', (text, milli) => expect(milliQuantity(text)).toBe(milli));
  it.each(['', 'abc', '1Xi', '--1'])('refuses %j', (text) => expect(milliQuantity(text)).toBeUndefined());
  it.each([
    [250, '250m'],
    [2000, '2'],
    [2 ** 30 * 1000, '1Gi'],
    [3 * 2 ** 20 * 1000, '3Mi'],
    [0, '0'],
  ])('writes %d milli-units as %j', (milli, text) => expect(formatMilliQuantity(milli)).toBe(text));
});

describe('quantityBytes (size flags)', () => {
  it.each([
    ['0', 0],
    ['65536', 65536],
    ['64Ki', 65536],
    ['1Mi', 2 ** 20],
    ['1M', 1e6],
    ['1.5Ki', 1536],
  ] as const)('reads %j as %d bytes', (text, bytes) => expect(quantityBytes(text)).toBe(bytes));
  it.each(['', 'big', '-1', '500m', '1.5'])('refuses %j: not a whole, non-negative number of bytes', (text) => expect(quantityBytes(text)).toBeUndefined());
});

describe('milliValue and formatMilliShort (the scheduler, the dashboard page)', () => {
  it.each([
    ['1', 1000],
    ['250m', 250],
    ['1Ki', 1_024_000],
    ['100n', 1],
    ['0.1', 100],
    ['nonsense', 0],
  ] as const)('reads %j as %d milli-units, rounded up as MilliValue', (text, milli) => expect(milliValue(text)).toBe(milli));
  it.each([
    [0, '0'],
    [250, '250m'],
    [2000, '2'],
    [1500, '1500m'],
    [milliValue('1Gi'), '1Gi'],
    [milliValue('1536Mi'), '1536Mi'],
    [milliValue('100M'), '100M'],
    [milliValue('1Gi') + milliValue('1M'), '1074741824'],
  ])('writes %d milli-units as %j, in the largest unit, decimal too, they are a whole multiple of', (milli, text) => expect(formatMilliShort(milli)).toBe(text));
});
