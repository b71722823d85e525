import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/api/index.js';
import { planGet, planList, planWatch, type ReadQuery } from '../../src/apiserver/read-semantics.js';

/** The 400 a bad query gets: a StatusError with code 400 and reason BadRequest. */
function badRequest(plan: () => unknown): string {
  try {
    plan();
  } catch (error) {
    if (!isStatusError(error)) throw error;
    const status = error.toStatus();
    expect(status).toMatchObject({ code: 400, reason: 'BadRequest', status: 'Failure' });
    return status.message;
  }
  throw new Error('expected a 400');
}

describe('the get table', () => {
  it.each([
    [undefined, { kind: 'MostRecent' }],
    ['', { kind: 'MostRecent' }],
    ['0', { kind: 'Any' }],
    ['42', { kind: 'NotOlderThan', revision: 42 }],
  ])('resourceVersion %j → %j', (resourceVersion, plan) => {
    expect(planGet({ resourceVersion })).toEqual(plan);
  });

  it.each(['abc', '-1', '1.5', '1e3', ' 7', '99999999999999999'])('resourceVersion %j is a 400', (resourceVersion) => {
    expect(badRequest(() => planGet({ resourceVersion }))).toMatch(/resourceVersion/);
  });
});

describe('the list table', () => {
  const rv = { unset: undefined, zero: '0', other: '42' } as const;
  const paging = { none: {}, limit: { limit: '5' }, continue: { limit: '5', continue: 'TOKEN' } } as const;
  type Cell = { kind: string; revision?: number } | 'Invalid';
  // Rows: match × paging; columns: unset, "0", other — the spec's table, cell for cell.
  const table: [string | undefined, keyof typeof paging, Cell, Cell, Cell][] = [
    [undefined, 'none', { kind: 'MostRecent' }, { kind: 'Any' }, { kind: 'NotOlderThan', revision: 42 }],
    [undefined, 'limit', { kind: 'MostRecent' }, { kind: 'Any' }, { kind: 'Exact', revision: 42 }],
    [undefined, 'continue', { kind: 'Continuation' }, { kind: 'Continuation' }, 'Invalid'],
    ['Exact', 'none', 'Invalid', 'Invalid', { kind: 'Exact', revision: 42 }],
    ['Exact', 'limit', 'Invalid', 'Invalid', { kind: 'Exact', revision: 42 }],
    ['NotOlderThan', 'none', 'Invalid', { kind: 'Any' }, { kind: 'NotOlderThan', revision: 42 }],
    ['NotOlderThan', 'limit', 'Invalid', { kind: 'Any' }, { kind: 'NotOlderThan', revision: 42 }],
  ];
  for (const [match, page, ...cells] of table) {
    (['unset', 'zero', 'other'] as const).forEach((column, i) => {
      const cell = cells[i]!;
      const query: ReadQuery = { ...paging[page], resourceVersion: rv[column], resourceVersionMatch: match };
      it(`match ${match ?? 'unset'}, ${page}, resourceVersion ${column} → ${cell === 'Invalid' ? 'Invalid' : cell.kind}`, () => {
        if (cell === 'Invalid') return void badRequest(() => planList(query));
        expect(planList(query).plan).toMatchObject(cell);
      });
    });
  }

  it('keeps the limit, 0 meaning none', () => {
    expect(planList({ limit: '500' }).limit).toBe(500);
    expect(planList({}).limit).toBe(0);
    expect(planList({ limit: '0' }).limit).toBe(0);
  });

  it.each(['-1', '1.5', 'ten', '0x10'])('limit %j is a 400', (limit) => {
    expect(badRequest(() => planList({ limit }))).toMatch(/limit/);
  });

  it.each(['exact', 'Newest', 'NotOlder'])('resourceVersionMatch %j is a 400', (resourceVersionMatch) => {
    expect(badRequest(() => planList({ resourceVersion: '5', resourceVersionMatch }))).toMatch(/resourceVersionMatch/);
  });

  it('rejects resourceVersionMatch together with continue', () => {
    expect(badRequest(() => planList({ continue: 'T', resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' }))).toMatch(/continue/);
  });

  it('rejects a malformed resourceVersion in every row', () => {
    badRequest(() => planList({ resourceVersion: 'x' }));
    badRequest(() => planList({ resourceVersion: '-3', resourceVersionMatch: 'Exact' }));
    badRequest(() => planList({ resourceVersion: 'x', continue: 'T' }));
  });
});

describe('the watch table', () => {
  it.each([
    [undefined, { start: { kind: 'MostRecent' }, initialEvents: true, watchList: false }],
    ['0', { start: { kind: 'Any' }, initialEvents: true, watchList: false }],
    ['42', { start: { kind: 'Exact', revision: 42 }, initialEvents: false, watchList: false }],
  ])('resourceVersion %j → %j', (resourceVersion, plan) => {
    expect(planWatch({ resourceVersion })).toEqual(plan);
  });

  it.each([
    [undefined, { kind: 'MostRecent' }],
    ['', { kind: 'MostRecent' }],
    ['0', { kind: 'Any' }],
    ['42', { kind: 'NotOlderThan', revision: 42 }],
  ])('sendInitialEvents=true with resourceVersion %j starts from %j and ends the initial events with a bookmark', (resourceVersion, start) => {
    expect(planWatch({ resourceVersion, resourceVersionMatch: 'NotOlderThan', sendInitialEvents: 'true' })).toEqual({ start, initialEvents: true, watchList: true });
  });

  it('sendInitialEvents=false starts at the version without initial events', () => {
    expect(planWatch({ resourceVersion: '42', resourceVersionMatch: 'NotOlderThan', sendInitialEvents: 'false' })).toEqual({
      start: { kind: 'Exact', revision: 42 },
      initialEvents: false,
      watchList: false,
    });
  });

  it('sendInitialEvents requires resourceVersionMatch=NotOlderThan', () => {
    expect(badRequest(() => planWatch({ sendInitialEvents: 'true' }))).toBe('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    badRequest(() => planWatch({ sendInitialEvents: 'true', resourceVersion: '5', resourceVersionMatch: 'Exact' }));
  });

  it('refuses sendInitialEvents when the WatchList gate is off, and keeps the legacy table', () => {
    expect(badRequest(() => planWatch({ sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan' }, { watchList: false }))).toMatch(/WatchList/);
    expect(planWatch({ resourceVersion: '0' }, { watchList: false }).start).toEqual({ kind: 'Any' });
  });

  it('rejects resourceVersionMatch without sendInitialEvents, and bad values', () => {
    badRequest(() => planWatch({ resourceVersion: '5', resourceVersionMatch: 'NotOlderThan' }));
    badRequest(() => planWatch({ resourceVersion: 'abc' }));
    badRequest(() => planWatch({ sendInitialEvents: 'yes', resourceVersionMatch: 'NotOlderThan' }));
  });
});
