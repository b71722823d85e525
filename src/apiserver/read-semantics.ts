import { badRequest, booleanParam } from '../api/index.js';

/**
 * The resourceVersion tables of the resource API, as data: which state a get, list or watch
 * reads, decided from its query alone, before anything is read. Every "Invalid" cell and every
 * malformed value is a 400 here.
 */

/** What a get or list reads. */
export type ReadPlan =
  /** The newest state: a consistent read (from the cache once it has caught up). */
  | { readonly kind: 'MostRecent' }
  /** Whatever the cache holds now. */
  | { readonly kind: 'Any' }
  /** Any state at or after `revision` (waits for it, then 504). */
  | { readonly kind: 'NotOlderThan'; readonly revision: number }
  /** The state at exactly `revision` (410 once nothing holds it). */
  | { readonly kind: 'Exact'; readonly revision: number }
  /** The next page of a paged list, at the revision its token names. */
  | { readonly kind: 'Continuation'; readonly token: string };

/** Where a watch starts, and whether it begins with the state it starts from. */
export interface WatchPlan {
  /**
   * `MostRecent`: a consistent read, then its later events; `Any`: the cache's state now;
   * `NotOlderThan`: a state at or after `revision`; `Exact`: the events after `revision`.
   */
  readonly start: ReadPlan & { readonly kind: 'MostRecent' | 'Any' | 'NotOlderThan' | 'Exact' };
  /** Synthetic ADDED for every object of the start state before the live events. */
  readonly initialEvents: boolean;
  /** The watch-list protocol (`sendInitialEvents=true`): ends the initial events with a bookmark. */
  readonly watchList: boolean;
}

export interface ReadQuery {
  readonly resourceVersion?: string | undefined;
  readonly resourceVersionMatch?: string | undefined;
  readonly limit?: string | undefined;
  readonly continue?: string | undefined;
  readonly sendInitialEvents?: string | undefined;
}

/** A resourceVersion to order by: a non-negative decimal integer (400 otherwise). */
export function parseResourceVersion(text: string): number {
  if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw badRequest(`resourceVersion ${JSON.stringify(text)} is not valid: it must be a non-negative decimal integer`);
  }
  return Number(text);
}

/** `limit`: absent or a non-negative integer; 0 means no limit. */
export function parseLimit(text: string | undefined): number {
  if (text === undefined || text === '') return 0;
  if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw badRequest(`limit ${JSON.stringify(text)} is not valid: it must be a non-negative integer`);
  }
  return Number(text);
}

const MATCHES = new Set(['Exact', 'NotOlderThan']);

function parseMatch(text: string | undefined): 'Exact' | 'NotOlderThan' | undefined {
  if (text === undefined || text === '') return undefined;
  if (!MATCHES.has(text)) throw badRequest(`resourceVersionMatch ${JSON.stringify(text)} is not valid: supported values are "Exact" and "NotOlderThan"`);
  return text as 'Exact' | 'NotOlderThan';
}

const unset = (value: string | undefined) => value === undefined || value === '';

/** The get table: unset → Most Recent, "0" → Any, other → Not older than. */
export function planGet(query: Pick<ReadQuery, 'resourceVersion'>): ReadPlan {
  const rv = query.resourceVersion;
  if (unset(rv)) return { kind: 'MostRecent' };
  const revision = parseResourceVersion(rv!);
  return revision === 0 ? { kind: 'Any' } : { kind: 'NotOlderThan', revision };
}

/** The list table, row by row. */
export function planList(query: ReadQuery): { plan: ReadPlan; limit: number } {
  const limit = parseLimit(query.limit);
  const match = parseMatch(query.resourceVersionMatch);
  const rv = query.resourceVersion;
  const revision = unset(rv) ? undefined : parseResourceVersion(rv!);
  if (!unset(query.continue)) {
    if (match !== undefined) throw badRequest('resourceVersionMatch is forbidden when continue is provided');
    if (revision !== undefined && revision !== 0) throw badRequest('specifying resourceVersion is not allowed when using continue');
    return { plan: { kind: 'Continuation', token: query.continue! }, limit };
  }
  if (match === 'Exact') {
    if (revision === undefined) throw badRequest('resourceVersionMatch "Exact" requires resourceVersion to be set');
    if (revision === 0) throw badRequest('resourceVersionMatch "Exact" is forbidden for resourceVersion "0"');
    return { plan: { kind: 'Exact', revision }, limit };
  }
  if (match === 'NotOlderThan') {
    if (revision === undefined) throw badRequest('resourceVersionMatch "NotOlderThan" requires resourceVersion to be set');
    return { plan: revision === 0 ? { kind: 'Any' } : { kind: 'NotOlderThan', revision }, limit };
  }
  if (revision === undefined) return { plan: { kind: 'MostRecent' }, limit };
  if (revision === 0) return { plan: { kind: 'Any' }, limit };
  return { plan: limit > 0 ? { kind: 'Exact', revision } : { kind: 'NotOlderThan', revision }, limit };
}

/**
 * The watch table (unset → get state and start at most recent, "0" → get state and start at
 * any, other → start at exactly that version) and the watch-list rules of `sendInitialEvents`.
 */
export function planWatch(query: ReadQuery, gates: { readonly watchList?: boolean } = {}): WatchPlan {
  const match = parseMatch(query.resourceVersionMatch);
  const rv = query.resourceVersion;
  const revision = unset(rv) ? undefined : parseResourceVersion(rv!);
  const sendInitial = query.sendInitialEvents;
  if (sendInitial === undefined || sendInitial === '') {
    if (match !== undefined) throw badRequest('resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
    if (revision === undefined) return { start: { kind: 'MostRecent' }, initialEvents: true, watchList: false };
    if (revision === 0) return { start: { kind: 'Any' }, initialEvents: true, watchList: false };
    return { start: { kind: 'Exact', revision }, initialEvents: false, watchList: false };
  }
  if (gates.watchList === false) throw badRequest('sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
  const initial = booleanParam('sendInitialEvents', sendInitial)!;
  if (match !== 'NotOlderThan') throw badRequest('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
  const start: WatchPlan['start'] =
    revision === undefined ? { kind: 'MostRecent' } : revision === 0 ? { kind: 'Any' } : initial ? { kind: 'NotOlderThan', revision } : { kind: 'Exact', revision };
  return { start, initialEvents: initial, watchList: initial };
}
