// The page's copy of the quantity grammar (src/dashboard/ui/quantity.ts) against the project's
// reader: the same milli-units for every quantity, 0 for what is not one.
import { describe, expect, it } from 'vitest';
import { milliValue as apiMilliValue } from '../../src/api/index.js';
import { formatMilli, milliValue } from '../../src/dashboard/ui/quantity.js';

const QUANTITIES: unknown[] = [
  '1', '0', '250m', '0.5', '.5', '1.', '100n', '3u', '2k', '2Ki', '128Mi', '1.5Gi', '7Gi', '100M', '1G', '1T', '1Ti', '1P', '1Pi', '1E',
  '2e3', '1E3', '5e-3', '+1', ' 2 ', 3, 0.25, 0.1, '', 'abc', '1Mb', '1 Gi', '--1', null, undefined, {}, Number.NaN,
];

describe("the page's quantity reader", () => {
  it('reads every quantity as src/api does', () => {
    for (const quantity of QUANTITIES) expect([quantity, milliValue(quantity)]).toEqual([quantity, apiMilliValue(quantity)]);
  });

  it('rounds up to a milli-unit, as MilliValue does', () => {
    expect(milliValue('1')).toBe(1000);
    expect(milliValue('250m')).toBe(250);
    expect(milliValue('1Ki')).toBe(1_024_000);
    expect(milliValue('100n')).toBe(1);
    expect(milliValue('0.1')).toBe(100);
    expect(milliValue('nonsense')).toBe(0);
  });

  it('formats milli-units in the largest unit they are a whole multiple of', () => {
    expect(formatMilli(0)).toBe('0');
    expect(formatMilli(250)).toBe('250m');
    expect(formatMilli(2000)).toBe('2');
    expect(formatMilli(1500)).toBe('1500m');
    expect(formatMilli(milliValue('1Gi'))).toBe('1Gi');
    expect(formatMilli(milliValue('1536Mi'))).toBe('1536Mi');
    expect(formatMilli(milliValue('100M'))).toBe('100M');
    expect(formatMilli(milliValue('1Gi') + milliValue('1M'))).toBe('1074741824');
  });
});
