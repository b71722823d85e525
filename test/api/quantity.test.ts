import { describe, expect, it } from 'vitest';
import { quantityValue } from '../../src/api/index.js';

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
