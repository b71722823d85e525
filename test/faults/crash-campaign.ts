/**
 * The parts of the crash tests: writers that know what the server acknowledged, the check that
 * every acknowledged write survived, and the check that watches resumed after a crash replay
 * every change in order with no gap. The tests kill something (the API server, etcd) between
 * them.
 */
import { expect } from 'vitest';
import { isStream, openWatch, type WatchEvent, type WatchStream } from '../support/watch-client.js';
import { call, type Answer, type ApiServerProcess } from './apiserver-process.js';

export const WRITERS = 32;
const NAMES_PER_WRITER = 4;
/** Each writer's requests per round: the round ends at the crash or when every writer is done. */
const OPS_PER_WRITER = 60;
export const NS = 'crash';
export const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;

type Op = 'create' | 'update' | 'delete';

/** What the writers know of one name: its last acknowledged state, and a write whose outcome is unknown. */
interface Known {
  exists: boolean;
  /** The resourceVersion of the last acknowledged create or update (0 before any). */
  rv: number;
  data: string;
  /** A write whose answer never came (or was a 5xx): it may or may not have happened. */
  uncertain: Op | undefined;
}

/** What the writers have learnt across rounds. */
export class Ledger {
  readonly known = new Map<string, Known>();
  /** Every acknowledged (or found) create and update: each must be an event of every watch that covers it. */
  readonly acked: { name: string; rv: number }[] = [];
  /** Answers that were neither a 2xx nor allowed by the round. */
  readonly unexpected: string[] = [];
  totalAcks = 0;
  /** Writes whose outcome the crashes left unknown, summed over rounds. */
  uncertainWrites = 0;

  constructor() {
    for (let w = 0; w < WRITERS; w++) for (let n = 0; n < NAMES_PER_WRITER; n++) this.known.set(`w${w}-${n}`, { exists: false, rv: 0, data: '', uncertain: undefined });
  }
}

export const rvOf = (object: any): number => Number(object?.metadata?.resourceVersion);

export async function listConfigMaps(server: ApiServerProcess): Promise<{ rv: number; items: Map<string, { rv: number; data: string }> }> {
  const res = await call(server, 'GET', CONFIGMAPS);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const items = new Map<string, { rv: number; data: string }>();
  for (const item of res.body.items) items.set(item.metadata.name, { rv: rvOf(item), data: item.data?.v ?? '' });
  return { rv: rvOf(res.body), items };
}

export interface RoundOptions {
  readonly round: number;
  readonly random: () => number;
  /** Called once, when this many writes of the round have been acknowledged. */
  readonly crashAt: number;
  readonly crash: () => Promise<void>;
  /** Whether a non-2xx answer leaves the write uncertain (the store was down) instead of unexpected. */
  readonly allowServerErrors?: boolean;
}

/**
 * One round: every writer creates, updates (with the resourceVersion it was answered) and
 * deletes its own names until its requests run out or the server fails it; `crash` is called at
 * `crashAt` acknowledgements (or at the end of the round, if the writers finish first).
 */
export async function writeRound(server: ApiServerProcess, ledger: Ledger, o: RoundOptions): Promise<void> {
  let acks = 0;
  let crashed: Promise<void> | undefined;
  const writer = async (w: number) => {
    for (let i = 0; i < OPS_PER_WRITER; i++) {
      const key = `w${w}-${Math.floor(o.random() * NAMES_PER_WRITER)}`;
      const state = ledger.known.get(key)!;
      const op: Op = !state.exists ? 'create' : o.random() < 0.7 ? 'update' : 'delete';
      const data = `${o.round}-${w}-${i}`;
      state.uncertain = op;
      let answer: Answer;
      try {
        if (op === 'create') {
          answer = await call(server, 'POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key }, data: { v: data } });
        } else if (op === 'update') {
          answer = await call(server, 'PUT', `${CONFIGMAPS}/${key}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key, resourceVersion: String(state.rv) }, data: { v: data } });
        } else {
          answer = await call(server, 'DELETE', `${CONFIGMAPS}/${key}`);
        }
      } catch {
        return; // no answer: the server is gone; the write stays uncertain
      }
      if (answer.status < 200 || answer.status > 299) {
        const allowed = o.allowServerErrors && answer.status >= 500 && answer.body?.kind === 'Status';
        if (!allowed) {
          state.uncertain = undefined;
          ledger.unexpected.push(`${op} ${key}: ${answer.status} ${JSON.stringify(answer.body)}`);
        }
        return;
      }
      state.uncertain = undefined;
      if (op === 'delete') {
        state.exists = false;
      } else {
        state.exists = true;
        state.rv = rvOf(answer.body);
        state.data = data;
        ledger.acked.push({ name: key, rv: state.rv });
      }
      ledger.totalAcks++;
      if (++acks === o.crashAt) crashed = o.crash();
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  await (crashed ?? o.crash());
  ledger.uncertainWrites += [...ledger.known.values()].filter((state) => state.uncertain !== undefined).length;
}

/**
 * After the restart: every acknowledged write is there with its resourceVersion (or a later one
 * when a later write of the name was uncertain), every acknowledged delete is absent, nothing
 * unknown exists; then the uncertain writes' outcomes are learnt from the store.
 */
export async function checkSurvivors(server: ApiServerProcess, ledger: Ledger, where: string): Promise<void> {
  const after = await listConfigMaps(server);
  for (const [key, state] of ledger.known) {
    const found = after.items.get(key);
    const what = `${key} (${where}, uncertain: ${state.uncertain ?? 'nothing'}, acknowledged rv ${state.rv})`;
    if (state.uncertain === undefined) {
      if (state.exists) {
        expect(found, what).toBeDefined();
        expect(found!.rv, what).toBe(state.rv);
        expect(found!.data, what).toBe(state.data);
      } else {
        expect(found, what).toBeUndefined();
      }
    } else if (state.uncertain === 'update') {
      expect(found, what).toBeDefined();
      expect(found!.rv, what).toBeGreaterThanOrEqual(state.rv);
    } else if (state.uncertain === 'delete') {
      if (found) expect(found.rv, what).toBe(state.rv);
    } else if (found) {
      expect(found.rv, what).toBeGreaterThan(state.rv);
    }
    state.exists = found !== undefined;
    if (found) {
      if (found.rv !== state.rv) ledger.acked.push({ name: key, rv: found.rv });
      state.rv = found.rv;
      state.data = found.data;
    }
    state.uncertain = undefined;
  }
  expect([...after.items.keys()].filter((key) => !ledger.known.has(key))).toEqual([]);
}

/** A watch opened before a crash: the state it started from and every event it saw. */
export interface TrackedWatch {
  readonly startRv: number;
  readonly start: ReadonlyMap<string, number>;
  readonly stream: WatchStream;
}

export async function openTrackedWatches(server: ApiServerProcess, count: number): Promise<TrackedWatch[]> {
  const before = await listConfigMaps(server);
  const start = new Map([...before.items].map(([k, v]) => [k, v.rv]));
  const watches: TrackedWatch[] = [];
  for (let i = 0; i < count; i++) {
    const stream = await openWatch(`${server.url}${CONFIGMAPS}?watch=1&resourceVersion=${before.rv}`, { token: server.token, ca: server.ca });
    if (!isStream(stream)) throw new Error(`watch refused: ${stream.status} ${JSON.stringify(stream.body)}`);
    watches.push({ startRv: before.rv, start, stream });
  }
  return watches;
}

const isGone = (event: WatchEvent) => event.type === 'ERROR' && event.object?.code === 410;
const changes = (events: readonly WatchEvent[]) => events.filter((e) => e.type !== 'BOOKMARK');

/**
 * Each watch goes on from the last resourceVersion it saw — on its own stream when the crash did
 * not end it, else on a new watch — until a sentinel written now. What it saw before and after is
 * checked: resourceVersions strictly rise, every acknowledged write between its start and the
 * sentinel is an event, and the events over its start state give the state now. A 410 Gone is
 * the one allowed alternative. Returns how many watches replayed and how many were gone.
 */
export async function checkResumedWatches(server: ApiServerProcess, ledger: Ledger, watches: readonly TrackedWatch[], sentinel: string): Promise<{ replayed: number; gone: number }> {
  let replayed = 0;
  let gone = 0;
  const resumed: { watch: TrackedWatch; lastSeen: number; stream: WatchStream | undefined; seenBefore: WatchEvent[] }[] = [];
  for (const watch of watches) {
    const open = watch.stream.ended === undefined;
    const seenBefore = changes(watch.stream.events);
    expect(seenBefore.filter(isGone)).toEqual([]);
    const lastSeen = seenBefore.length > 0 ? rvOf(seenBefore.at(-1)!.object) : watch.startRv;
    if (open) {
      // It survived the crash (the store died, not the API server): it goes on as it is.
      resumed.push({ watch, lastSeen, stream: watch.stream, seenBefore: [] });
      continue;
    }
    const again = await openWatch(`${server.url}${CONFIGMAPS}?watch=1&resourceVersion=${lastSeen}`, { token: server.token, ca: server.ca });
    if (!isStream(again)) {
      expect(again.status, JSON.stringify(again.body)).toBe(410);
      gone++;
      continue;
    }
    resumed.push({ watch, lastSeen, stream: again, seenBefore });
  }
  const created = await call(server, 'POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: sentinel } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const sentinelRv = rvOf(created.body);
  const now = await listConfigMaps(server);

  for (const { watch, lastSeen, stream, seenBefore } of resumed) {
    const more = await stream!.until((e) => isGone(e) || (e.type === 'ADDED' && e.object?.metadata?.name === sentinel), `the sentinel ${sentinel}`);
    if (more.some(isGone)) {
      gone++;
      continue;
    }
    replayed++;
    // A stream that went on holds everything from its start; a new one, what came after lastSeen.
    const events = stream === watch.stream ? changes(watch.stream.events.slice(0, watch.stream.events.indexOf(more.at(-1)!) + 1)) : [...seenBefore, ...changes(more)];
    const rvs = events.map((e) => rvOf(e.object));
    for (let i = 1; i < rvs.length; i++) expect(rvs[i], `event ${i} after ${rvs[i - 1]} (resumed from ${lastSeen})`).toBeGreaterThan(rvs[i - 1]!);
    const seen = new Set(events.map((e) => `${e.object.metadata.name}@${rvOf(e.object)}`));
    const missing = ledger.acked.filter((a) => a.rv > watch.startRv && a.rv < sentinelRv && !seen.has(`${a.name}@${a.rv}`));
    expect(missing, `resumed from ${lastSeen}`).toEqual([]);
    const state = new Map(watch.start);
    for (const e of events) {
      if (e.type === 'DELETED') state.delete(e.object.metadata.name);
      else state.set(e.object.metadata.name, rvOf(e.object));
    }
    expect(state).toEqual(new Map([...now.items].map(([k, v]) => [k, v.rv])));
  }
  for (const watch of watches) watch.stream.abort();
  for (const { stream } of resumed) stream?.abort();
  expect((await call(server, 'DELETE', `${CONFIGMAPS}/${sentinel}`)).status).toBe(200);
  return { replayed, gone };
}
