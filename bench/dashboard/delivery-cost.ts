// What the API server's process spends on its watchers per write, and how late their events are
// (issue #25's delivery share): bench:dashboard's API server (cluster-process.ts, a process of its
// own), PODS pods, then phases of label patches at RATE per second for SECONDS each, CONCURRENCY
// in flight, with a different number of the dashboard's Table watches open in each phase
// (PHASES, in that order: "0,4,1,4,0,1" by default, so each count is measured twice, early and
// late). Reported per phase: the server process's CPU per answered write (user + system, which a
// loaded machine inflates far less than wall time), the events and bytes each watcher read, the
// first watcher's lag (a patch's answer → that watcher read its event) and the server's event
// loop delay; then per watcher count the mean CPU per write and the cost one more watcher adds
// per write (the slope against 0 watchers). Watchers read in this process (the first parses
// its lines, the others count them); the writes are sent from here too (their CPU is not the
// server's).
//   node --import tsx bench/dashboard/delivery-cost.ts
//   WATCH=json …   the watchers are plain JSON watches (an informer's) instead of Table ones
//   TURN_BUDGETS=0,10 …   an A/B in one run: one server per value of its turnBudgetMs
//     (src/apiserver/turn-budget.ts), each phase run on each server in turn
//   PROFILE_SERVER=<file>.cpuprofile …   a profile of the (first) server over every phase, and its split
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, Pool, request } from 'undici';
import type { ConnectionOptions } from '../../src/client/index.js';
import { readTableWatch } from './table-watch-events.js';

const PODS = Number(process.env['PODS'] ?? 2000);
const RATE = Number(process.env['RATE'] ?? 300);
const SECONDS = Number(process.env['SECONDS'] ?? 10);
const CONCURRENCY = Number(process.env['CONCURRENCY'] ?? 32);
const PHASES = (process.env['PHASES'] ?? '0,4,1,4,0,1').split(',').map(Number);
const TURN_BUDGETS = process.env['TURN_BUDGETS']?.split(',');
const ACCEPT = process.env['WATCH'] === 'json' ? 'application/json' : 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json';
const PROFILE_SERVER = process.env['PROFILE_SERVER'];
const podsPath = '/api/v1/namespaces/bench/pods';

type LoopDelay = { p50: number; p99: number; max: number };
type ClusterMessage = { kind: 'ready'; connection: ConnectionOptions } | { kind: 'cpu'; micros: number; systemMicros: number; loopDelayMs: LoopDelay } | { kind: 'profile'; split?: unknown };

/** One API server under test, with the clients that write to it and watch it. */
interface Server {
  readonly label: string;
  readonly process: ChildProcess;
  readonly connection: ConnectionOptions;
  readonly headers: Record<string, string>;
  readonly pool: Pool;
  readonly watchAgent: Agent;
  /** By resourceVersion, when the patch that made it was answered (ms, this process's clock). */
  readonly answeredAt: Map<string, number>;
}

async function startServer(label: string, turnBudgetMs: string | undefined): Promise<Server> {
  const child = fork(new URL('./cluster-process.ts', import.meta.url).pathname, {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
    env: { ...process.env, ...(turnBudgetMs === undefined ? {} : { TURN_BUDGET_MS: turnBudgetMs }) },
  });
  process.once('exit', () => child.kill());
  const connection = await new Promise<ConnectionOptions>((resolve) => child.once('message', (m: ClusterMessage) => m.kind === 'ready' && resolve(m.connection)));
  return {
    label,
    process: child,
    connection,
    headers: { authorization: `Bearer ${connection.token ?? ''}` },
    pool: new Pool(connection.server, { connect: { ca: connection.caData }, connections: CONCURRENCY }),
    watchAgent: new Agent({ connect: { ca: connection.caData }, bodyTimeout: 0 }),
    answeredAt: new Map(),
  };
}

function ask<K extends ClusterMessage['kind']>(server: Server, message: string, kind: K): Promise<Extract<ClusterMessage, { kind: K }>> {
  return new Promise((resolve) => {
    const on = (reply: ClusterMessage) => {
      if (reply.kind !== kind) return;
      server.process.off('message', on);
      resolve(reply as Extract<ClusterMessage, { kind: K }>);
    };
    server.process.on('message', on);
    server.process.send(message);
  });
}

async function send(server: Server, method: 'POST' | 'PATCH', path: string, body: unknown, contentType = 'application/json'): Promise<string> {
  const res = await server.pool.request({ method, path, headers: { ...server.headers, 'content-type': contentType }, body: JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300 && res.statusCode !== 409) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
  return text;
}

const names = Array.from({ length: PODS }, (_, i) => `pod-${String(i).padStart(5, '0')}`);
async function createPods(server: Server): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < PODS) {
        const name = names[next++]!;
        await send(server, 'POST', podsPath, { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'bench', labels: { app: 'bench' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
      }
    }),
  );
}

interface Watcher {
  events: number;
  bytes: number;
  /** The first watcher's: a patch's answer → this watcher read its MODIFIED event (ms). */
  readonly lags: number[] | undefined;
  readonly abort: AbortController;
  done: Promise<void>;
}

async function* countingBytes(body: AsyncIterable<Buffer>, watcher: Watcher): AsyncIterable<Buffer> {
  for await (const chunk of body) {
    watcher.bytes += chunk.length;
    yield chunk;
  }
}

/** A watch from now, as the dashboard opens it; resolves once its headers came. */
async function openWatcher(server: Server, index: number): Promise<Watcher> {
  const abort = new AbortController();
  const res = await request(`${server.connection.server}${podsPath}?watch=true&allowWatchBookmarks=true`, { dispatcher: server.watchAgent, headers: { ...server.headers, accept: ACCEPT }, signal: abort.signal, bodyTimeout: 0 });
  if (res.statusCode !== 200) throw new Error(`watch: ${res.statusCode}`);
  const watcher: Watcher = { events: 0, bytes: 0, lags: index === 0 ? [] : undefined, abort, done: Promise.resolve() };
  const body = res.body as AsyncIterable<Buffer>;
  watcher.done = (async () => {
    try {
      if (watcher.lags !== undefined) {
        const lags = watcher.lags;
        await readTableWatch(countingBytes(body, watcher), (type, version, at) => {
          watcher.events++;
          const answered = server.answeredAt.get(version);
          if (type === 'MODIFIED' && answered !== undefined) lags.push(at - answered);
        });
        return;
      }
      for await (const chunk of body) {
        watcher.bytes += chunk.length;
        for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) watcher.events++;
      }
    } catch {
      // aborted at the phase's end
    }
  })();
  return watcher;
}

let tick = 0;
/** Label patches at RATE per second for SECONDS, at most CONCURRENCY in flight. */
async function stream(server: Server): Promise<{ answered: number; failed: number }> {
  const start = performance.now();
  let sent = 0;
  let answered = 0;
  let failed = 0;
  let inflight = 0;
  while (performance.now() - start < SECONDS * 1000) {
    while (sent < ((performance.now() - start) / 1000) * RATE && inflight < CONCURRENCY) {
      const name = names[tick++ % PODS]!;
      sent++;
      inflight++;
      void send(server, 'PATCH', `${podsPath}/${name}`, { metadata: { labels: { tick: String(tick) } } }, 'application/merge-patch+json')
        .then(
          (text) => {
            answered++;
            server.answeredAt.set((JSON.parse(text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion, Date.now());
          },
          () => void failed++,
        )
        .finally(() => inflight--);
    }
    await sleep(5);
  }
  while (inflight > 0) await sleep(5);
  return { answered, failed };
}

const quantiles = (values: number[]): LoopDelay => {
  const s = [...values].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  return { p50: q(0.5), p99: q(0.99), max: q(1) };
};

interface Phase {
  server: string;
  watchers: number;
  answered: number;
  failed: number;
  cpuPerWriteMicros: number;
  /** Of it, the kernel's (system time): socket writes and reads. */
  systemPerWriteMicros: number;
  eventsPerWatcher: number[];
  bytesPerEvent: number;
  answerToWatcherMs?: LoopDelay;
  serverLoopDelayMs: LoopDelay;
  load: number;
}

async function runPhase(server: Server, count: number): Promise<Phase> {
  const watchers = await Promise.all(Array.from({ length: count }, (_, i) => openWatcher(server, i)));
  await sleep(500);
  const atStart = await ask(server, 'cpu', 'cpu');
  const { answered, failed } = await stream(server);
  await sleep(500); // the last events reach the watchers
  const end = await ask(server, 'cpu', 'cpu');
  for (const w of watchers) w.abort.abort();
  await Promise.all(watchers.map((w) => w.done));
  const events = watchers.reduce((sum, w) => sum + w.events, 0);
  return {
    server: server.label,
    watchers: count,
    answered,
    failed,
    cpuPerWriteMicros: Math.round((end.micros - atStart.micros) / Math.max(1, answered)),
    systemPerWriteMicros: Math.round((end.systemMicros - atStart.systemMicros) / Math.max(1, answered)),
    eventsPerWatcher: watchers.map((w) => w.events),
    bytesPerEvent: Math.round(watchers.reduce((sum, w) => sum + w.bytes, 0) / Math.max(1, events)),
    ...(watchers[0]?.lags === undefined ? {} : { answerToWatcherMs: quantiles(watchers[0].lags) }),
    serverLoopDelayMs: end.loopDelayMs,
    load: +loadavg()[0]!.toFixed(1),
  };
}

const servers: Server[] = [];
for (const budget of TURN_BUDGETS ?? [undefined]) servers.push(await startServer(budget === undefined ? 'server' : `turnBudgetMs=${budget}`, budget));
for (const server of servers) await createPods(server);
if (PROFILE_SERVER !== undefined) servers[0]!.process.send('profile-start');
const loadStart = loadavg().map((l) => +l.toFixed(1));
const phases: Phase[] = [];
for (const count of PHASES) {
  for (const server of servers) {
    phases.push(await runPhase(server, count));
    console.error(JSON.stringify(phases.at(-1)));
  }
}
const loadEnd = loadavg().map((l) => +l.toFixed(1));
const serverProfile = PROFILE_SERVER === undefined ? undefined : (await ask(servers[0]!, 'profile-stop', 'profile')).split;

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const summary = servers.map((server) => {
  const mine = phases.filter((p) => p.server === server.label);
  const counts = [...new Set(mine.map((p) => p.watchers))].sort((a, b) => a - b);
  const cpuOf = (count: number) => mean(mine.filter((p) => p.watchers === count).map((p) => p.cpuPerWriteMicros));
  const none = counts.includes(0) ? cpuOf(0) : undefined;
  return {
    server: server.label,
    byWatchers: counts.map((watchers) => {
      const of = mine.filter((p) => p.watchers === watchers);
      return {
        watchers,
        cpuPerWriteMicros: Math.round(cpuOf(watchers)),
        ...(none === undefined || watchers === 0 ? {} : { cpuPerWatcherPerWriteMicros: Math.round((cpuOf(watchers) - none) / watchers) }),
        ...(watchers === 0 ? {} : { answerToWatcherP99Ms: of.map((p) => p.answerToWatcherMs?.p99), answerToWatcherP50Ms: of.map((p) => p.answerToWatcherMs?.p50) }),
        serverLoopDelayP99Ms: of.map((p) => p.serverLoopDelayMs.p99),
      };
    }),
  };
});
console.log(JSON.stringify({ pods: PODS, rate: RATE, concurrency: CONCURRENCY, secondsPerPhase: SECONDS, watch: ACCEPT, loadAverage: { start: loadStart, end: loadEnd }, summary, phases, ...(serverProfile === undefined ? {} : { apiServerProfile: serverProfile }) }, null, 2));
for (const server of servers) {
  await server.pool.close();
  await server.watchAgent.close();
  server.process.send('stop');
  await new Promise((resolve) => server.process.once('exit', resolve));
}
