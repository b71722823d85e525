// The crash test: svc-apiserver (the real process, HTTPS, the generated admin token) under 32
// concurrent writers of ConfigMaps is killed with SIGKILL mid-flight, several times, and started
// again over the same data (the sqlite file, or the same etcd). Every write the server answered
// 2xx must survive with its resourceVersion (or a later one, when a later write was in flight);
// every acknowledged delete stays deleted; watches opened before a crash and resumed from the
// last resourceVersion they saw replay every change in order with no gap (or answer 410 Gone).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEtcd, type EtcdMember } from '../support/etcd.js';
import { seededRandom } from '../support/prng.js';
import { isStream, openWatch, type WatchEvent, type WatchStream } from '../support/watch-client.js';
import { call, startApiServerProcess, type ApiServerProcess } from './apiserver-process.js';

const WRITERS = 32;
const NAMES_PER_WRITER = 4;
/** Each writer's requests per round: the round ends at the kill or when every writer is done. */
const OPS_PER_WRITER = 60;
const KILLS = 3;
const WATCHES = 3;
const NS = 'crash';
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;

type Op = 'create' | 'update' | 'delete';

/** What the writers know of one name: its last acknowledged state, and a write whose answer was lost. */
interface Known {
  exists: boolean;
  /** The resourceVersion of the last acknowledged create or update (0 before any). */
  rv: number;
  data: string;
  /** A write sent before the crash whose answer never came: it may or may not have happened. */
  inFlight: Op | undefined;
}

/** An acknowledged create or update: it must be in every watch that covers its resourceVersion. */
interface Acked {
  name: string;
  rv: number;
}

const rvOf = (object: any): number => Number(object?.metadata?.resourceVersion);

async function listConfigMaps(server: ApiServerProcess): Promise<{ rv: number; items: Map<string, { rv: number; data: string }> }> {
  const res = await call(server, 'GET', CONFIGMAPS);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const items = new Map<string, { rv: number; data: string }>();
  for (const item of res.body.items) items.set(item.metadata.name, { rv: rvOf(item), data: item.data?.v ?? '' });
  return { rv: rvOf(res.body), items };
}

/** A watch opened at a cycle's start: the state it started from and every event it saw. */
interface TrackedWatch {
  startRv: number;
  start: Map<string, number>;
  stream: WatchStream;
}

async function openTrackedWatch(server: ApiServerProcess, fromRv: number, start: Map<string, number>): Promise<TrackedWatch> {
  const watch = await openWatch(`${server.url}${CONFIGMAPS}?watch=1&resourceVersion=${fromRv}`, { token: server.token, ca: server.ca });
  if (!isStream(watch)) throw new Error(`watch refused: ${watch.status} ${JSON.stringify(watch.body)}`);
  return { startRv: fromRv, start, stream: watch };
}

const isGone = (event: WatchEvent) => event.type === 'ERROR' && event.object?.code === 410;

function runCrashCampaign(name: string, boot: () => Promise<{ args: string[]; dispose(): Promise<void> }>): void {
  describe(`svc-apiserver killed mid-flight (${name})`, () => {
    const dir = mkdtempSync(join(tmpdir(), `svc-crash-${name}-`));
    const disposers: (() => Promise<void>)[] = [];
    afterAll(async () => {
      for (const dispose of disposers.reverse()) await dispose();
      rmSync(dir, { recursive: true, force: true });
    });

    it(`keeps every acknowledged write and resumes watches across ${KILLS} SIGKILLs`, async () => {
      const seed = 0x5eed + name.length;
      const random = seededRandom(seed);
      const backend = await boot();
      disposers.push(backend.dispose);
      const dataDir = join(dir, 'data');
      let server = await startApiServerProcess(dataDir, backend.args);
      disposers.push(() => server.kill());

      expect((await call(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).toBe(201);

      const known = new Map<string, Known>();
      for (let w = 0; w < WRITERS; w++)
        for (let n = 0; n < NAMES_PER_WRITER; n++) known.set(`w${w}-${n}`, { exists: false, rv: 0, data: '', inFlight: undefined });
      const acked: Acked[] = [];
      const unexpected: string[] = [];
      let resumedWithReplay = 0;
      let resumedGone = 0;
      let totalAcks = 0;
      let lostAnswers = 0;

      for (let cycle = 0; cycle < KILLS; cycle++) {
        const before = await listConfigMaps(server);
        const watches: TrackedWatch[] = [];
        const startState = new Map([...before.items].map(([k, v]) => [k, v.rv]));
        for (let i = 0; i < WATCHES; i++) watches.push(await openTrackedWatch(server, before.rv, startState));

        // The writers: each owns its names, so nothing but the crash can make an answer unexpected.
        let acksThisCycle = 0;
        const killAt = 150 + Math.floor(random() * 250);
        let killed: Promise<void> | undefined;
        const victim = server;
        const writer = async (w: number) => {
          for (let i = 0; i < OPS_PER_WRITER; i++) {
            const key = `w${w}-${Math.floor(random() * NAMES_PER_WRITER)}`;
            const state = known.get(key)!;
            const op: Op = !state.exists ? 'create' : random() < 0.7 ? 'update' : 'delete';
            const data = `${cycle}-${w}-${i}`;
            state.inFlight = op;
            let answer;
            try {
              if (op === 'create') {
                answer = await call(victim, 'POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key }, data: { v: data } });
              } else if (op === 'update') {
                const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key, resourceVersion: String(state.rv) }, data: { v: data } };
                answer = await call(victim, 'PUT', `${CONFIGMAPS}/${key}`, body);
              } else {
                answer = await call(victim, 'DELETE', `${CONFIGMAPS}/${key}`);
              }
            } catch {
              return; // no answer: the server is gone; the write stays in flight
            }
            state.inFlight = undefined;
            if (answer.status < 200 || answer.status > 299) {
              unexpected.push(`${op} ${key}: ${answer.status} ${JSON.stringify(answer.body)}`);
              return;
            }
            if (op === 'delete') {
              state.exists = false;
            } else {
              state.exists = true;
              state.rv = rvOf(answer.body);
              state.data = data;
              acked.push({ name: key, rv: state.rv });
            }
            totalAcks++;
            if (++acksThisCycle === killAt) killed = victim.kill();
          }
        };
        await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
        // Every writer ran out of requests before the kill point: kill now (a quiet crash).
        await (killed ?? victim.kill());
        expect(unexpected).toEqual([]);
        lostAnswers += [...known.values()].filter((state) => state.inFlight !== undefined).length;

        server = await startApiServerProcess(dataDir, backend.args);

        // Every acknowledged write is there, with its resourceVersion or a later one.
        const after = await listConfigMaps(server);
        for (const [key, state] of known) {
          const found = after.items.get(key);
          const where = `${key} (cycle ${cycle}, in flight: ${state.inFlight ?? 'nothing'}, acked rv ${state.rv}, seed ${seed})`;
          if (state.inFlight === undefined) {
            if (state.exists) {
              expect(found, where).toBeDefined();
              expect(found!.rv, where).toBe(state.rv);
              expect(found!.data, where).toBe(state.data);
            } else {
              expect(found, where).toBeUndefined();
            }
          } else if (state.inFlight === 'update') {
            expect(found, where).toBeDefined();
            expect(found!.rv, where).toBeGreaterThanOrEqual(state.rv);
          } else if (state.inFlight === 'delete') {
            if (found) expect(found.rv, where).toBe(state.rv);
          } else if (found) {
            expect(found.rv, where).toBeGreaterThan(state.rv);
          }
          // The lost write's outcome is now known: it is what the store holds.
          state.exists = found !== undefined;
          if (found) {
            if (found.rv !== state.rv) acked.push({ name: key, rv: found.rv });
            state.rv = found.rv;
            state.data = found.data;
          }
          state.inFlight = undefined;
        }
        expect([...after.items.keys()].filter((key) => !known.has(key))).toEqual([]);

        // Each watch opened before the crash resumes from the last resourceVersion it saw.
        const sentinel = `sentinel-${cycle}`;
        const resumed: { watch: TrackedWatch; lastSeen: number; stream: WatchStream | undefined }[] = [];
        for (const watch of watches) {
          const seen = watch.stream.events.filter((e) => e.type !== 'BOOKMARK');
          expect(seen.filter(isGone)).toEqual([]);
          const lastSeen = seen.length > 0 ? rvOf(seen.at(-1)!.object) : watch.startRv;
          const again = await openWatch(`${server.url}${CONFIGMAPS}?watch=1&resourceVersion=${lastSeen}`, { token: server.token, ca: server.ca });
          if (!isStream(again)) {
            expect(again.status, JSON.stringify(again.body)).toBe(410);
            resumedGone++;
            resumed.push({ watch, lastSeen, stream: undefined });
          } else {
            resumed.push({ watch, lastSeen, stream: again });
          }
        }
        const created = await call(server, 'POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: sentinel } });
        expect(created.status).toBe(201);
        const sentinelRv = rvOf(created.body);
        const now = await listConfigMaps(server);

        for (const { watch, lastSeen, stream } of resumed) {
          if (!stream) continue;
          const more = await stream.until((e) => isGone(e) || (e.type === 'ADDED' && e.object?.metadata?.name === sentinel), `the sentinel ${sentinel}`);
          stream.abort();
          if (more.some(isGone)) {
            resumedGone++;
            continue;
          }
          resumedWithReplay++;
          const before = watch.stream.events.filter((e) => e.type !== 'BOOKMARK');
          const events = [...before, ...more.filter((e) => e.type !== 'BOOKMARK')];
          // In order, no duplicate: resourceVersions strictly increase across the crash.
          const rvs = events.map((e) => rvOf(e.object));
          for (let i = 1; i < rvs.length; i++) expect(rvs[i], `event ${i} after ${rvs[i - 1]} (resumed from ${lastSeen})`).toBeGreaterThan(rvs[i - 1]!);
          // No gap: every acknowledged write between the watch's start and the sentinel is an event.
          const eventRvs = new Set(events.map((e) => `${e.object.metadata.name}@${rvOf(e.object)}`));
          const missing = acked.filter((a) => a.rv > watch.startRv && a.rv < sentinelRv && !eventRvs.has(`${a.name}@${a.rv}`));
          expect(missing, `resumed from ${lastSeen}`).toEqual([]);
          // And the events replayed over the start state give the state now.
          const state = new Map(watch.start);
          for (const e of events) {
            if (e.type === 'DELETED') state.delete(e.object.metadata.name);
            else state.set(e.object.metadata.name, rvOf(e.object));
          }
          expect(state).toEqual(new Map([...now.items].map(([k, v]) => [k, v.rv])));
        }
        for (const watch of watches) watch.stream.abort();
        expect((await call(server, 'DELETE', `${CONFIGMAPS}/${sentinel}`)).status).toBe(200);
      }

      // The campaign did what it claims: many writes, and the watches really were resumed.
      expect(totalAcks).toBeGreaterThan(KILLS * 100);
      expect(resumedWithReplay + resumedGone).toBe(KILLS * WATCHES);
      expect(resumedWithReplay).toBeGreaterThan(0);
      expect(lostAnswers, 'writes in flight at the kills').toBeGreaterThan(0);
      console.log(`${name}: ${totalAcks} acknowledged writes, ${lostAnswers} lost answers, ${resumedWithReplay} watches replayed, ${resumedGone} gone`);
      await server.stop();
    });
  });
}

runCrashCampaign('sqlite', async () => ({ args: ['--storage=sqlite'], dispose: async () => {} }));

runCrashCampaign('etcd', async () => {
  const etcd: EtcdMember = await startEtcd();
  return { args: ['--storage=etcd', `--etcd-servers=${etcd.endpoint}`], dispose: () => etcd.stop() };
});
