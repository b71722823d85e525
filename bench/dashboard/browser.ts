// The dashboard in chromium under load (issue #25): PODS pods in one namespace shown in the live
// pods table, then a stream of label patches to them at RATE per second for SECONDS. Reported:
// time from opening the pods table to all rows counted, the write rate the driver reached, the
// page's frames during the stream (gaps between animation frames: max, p99, how many over 50 ms),
// store → DOM latency (from the API server's answer to a patch — the write is in the store — to
// the animation frame that put its resourceVersion in the table: the page's
// `svcDashboardApplied` hook), split where the page read the event off its stream, the CPU each
// part spent per write, and the JS heap after a forced GC at the start, every minute and at the
// end (flat = no growth). The API server is a process of its own (cluster-process.ts); the
// dashboard server and Node readers of the same watch (through the proxy, and straight from the
// API server) share this process's main thread, one more reads on a thread of its own; the
// writers are WRITERS worker threads (patch-writer.ts); chromium is its own processes. The load
// average is printed beside the figures.
//   npm run bench:dashboard          (PODS=10000 RATE=1000 SECONDS=300 WRITERS=2 by default)
//   COMPARE_UI=<dir>/main.ts npm run bench:dashboard
//     a second page beside the first, in the same browser and the same run, running the page
//     script bundled from that entry (an older src/dashboard/ui, say from `git worktree add`):
//     a same-run A/B of two versions of the page under one load.
//   PROFILE_PAGE=<file>.cpuprofile npm run bench:dashboard
//     a CPU profile of the (first) page over the stream, its script bundled unminified so the
//     profile names the functions; the functions with the most self time are printed too.
//   PROFILE_SERVER=<file>.cpuprofile npm run bench:dashboard
//     a CPU profile of the API server's process over the stream, and its split: delivery to the
//     watchers against the write path (bench/support/profile-split.ts).
//   TURN_BUDGET_MS=<ms> npm run bench:dashboard
//     the API server's turnBudgetMs (src/apiserver/turn-budget.ts; default 10, 0: none),
//     for an A/B of runs back to back. The server's event loop delay is reported either way.
//   BROWSER_SETUP=boost|shared|nice|pinned npm run bench:dashboard
//     where chromium runs beside the cluster (docs/benchmarks.md, "What the long frames were").
//     boost (the default): chromium's session, so its scheduler autogroup, at nice -10 (root):
//     it gets a CPU before the cluster, the bench and any other session's processes, as a user's
//     browser on its own machine would (autogroups share the CPU between sessions first; a
//     thread's nice counts only within its session, and chromium sets its threads' nice itself).
//     shared: as Playwright starts it (detached: a session of its own, at nice 0), as before.
//     nice: the API server's and this process's threads at nice 10 once chromium runs (no root
//     needed; it orders threads within the bench's session only). pinned: chromium alone on
//     CPU 1, the API server and the bench on CPU 0. Reported as `browserSetup`, with each sampled
//     thread's nice, CPUs and autogroup.
//   COMPARE_SETUP=shared npm run bench:dashboard
//     a second chromium started as in the shared set-up, with a page of its own, beside the
//     first (BROWSER_SETUP's): the two set-ups' frames in one run, under one load and one stream.
//   TRACE_PAGE=<file>.json npm run bench:dashboard
//     a chromium trace of the stream (devtools.timeline, v8, v8.gc, frames, toplevel,
//     blink.user_timing; each long frame a `svc-long-frame` measure in it), for
//     trace-long-frames.ts. Each long frame's Long Animation Frame entries and each chromium
//     thread's run and run-queue wait during it (/proc schedstat every SCHED_SAMPLE_MS, 10) are
//     in the output either way (`longFrames`, long-frames.ts).
import { fork, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { Agent, request, type Dispatcher } from 'undici';
import { builtin, Client, type ConnectionOptions } from '../../src/client/index.js';
import { bundleUi, startDashboard } from '../../src/dashboard/index.js';
import { chromiumProcesses, chromiumThreads, explainLongFrames, threadIds, mainThread, type AnimationFrameEntry, type LongFrame, type LongTaskEntry } from './long-frames.js';
import { readTableWatch } from './table-watch-events.js';

const PODS = Number(process.env['PODS'] ?? 10_000);
const RATE = Number(process.env['RATE'] ?? 1000);
const SECONDS = Number(process.env['SECONDS'] ?? 300);
const CONCURRENCY = Number(process.env['CONCURRENCY'] ?? 128);
const WRITERS = Number(process.env['WRITERS'] ?? 2);
const COMPARE_UI = process.env['COMPARE_UI'];
const PROFILE_PAGE = process.env['PROFILE_PAGE'];
const PROFILE_SERVER = process.env['PROFILE_SERVER'];
const BROWSER_SETUP = process.env['BROWSER_SETUP'] ?? 'boost';
const COMPARE_SETUP = process.env['COMPARE_SETUP'];
if (COMPARE_SETUP !== undefined && COMPARE_SETUP !== 'shared') throw new Error(`COMPARE_SETUP=${COMPARE_SETUP}: only shared`);
const TRACE_PAGE = process.env['TRACE_PAGE'];
const SCHED_SAMPLE_MS = Number(process.env['SCHED_SAMPLE_MS'] ?? 10);
if (!['shared', 'boost', 'nice', 'pinned'].includes(BROWSER_SETUP)) throw new Error(`BROWSER_SETUP=${BROWSER_SETUP}: shared, boost, nice or pinned`);

// The API server in a process of its own (cluster-process.ts): docs/benchmarks.md says why.
type LoopDelay = { p50: number; p99: number; max: number };
type ClusterMessage = { kind: 'ready'; connection: ConnectionOptions } | { kind: 'cpu'; micros: number; loopDelayMs: LoopDelay } | { kind: 'profile'; split?: unknown };
const clusterProcess = fork(new URL('./cluster-process.ts', import.meta.url).pathname, { execArgv: ['--import', 'tsx'], serialization: 'advanced' });
process.once('exit', () => clusterProcess.kill());
// pinned: the API server's process and this one (the writers, the dashboard server, the readers:
// every thread, and the threads started later inherit it) on CPU 0; chromium on CPU 1 (below).
if (BROWSER_SETUP === 'pinned') for (const pid of [clusterProcess.pid!, process.pid]) spawnSync('taskset', ['-a', '-p', '-c', '0', String(pid)], { stdio: 'ignore' });
const connection = await new Promise<ConnectionOptions>((resolve, reject) => {
  clusterProcess.once('message', (message: ClusterMessage) => (message.kind === 'ready' ? resolve(message.connection) : reject(new Error('cluster process: unexpected message'))));
  clusterProcess.once('exit', (code) => reject(new Error(`cluster process exited (${code})`)));
});
/** The API server process's CPU time so far (µs), and its event loop's delay since the last call. */
const clusterCpu = (): Promise<{ micros: number; loopDelayMs?: LoopDelay }> =>
  new Promise((resolve) => {
    clusterProcess.once('message', (message: ClusterMessage) => resolve(message.kind === 'cpu' ? message : { micros: 0 }));
    clusterProcess.send('cpu');
  });
const client = new Client(connection);

const names = Array.from({ length: PODS }, (_, i) => `pod-${String(i).padStart(5, '0')}`);
let next = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < names.length) {
      const name = names[next++]!;
      // A loaded machine times a connection out now and then: the create is tried again (one
      // that did land the first time answers 409, which is as good).
      for (let attempt = 1; ; attempt++) {
        try {
          await client.create(builtin.pods, { metadata: { name, namespace: 'bench', labels: { app: 'bench' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } as never);
          break;
        } catch (error) {
          if ((error as { code?: number }).code === 409) break;
          if (attempt === 5) throw error;
        }
      }
    }
  }),
);
const dashboard = await startDashboard({ connection, port: 0 });
// --enable-precise-memory-info: performance.memory unrounded.
const chromiumPath = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).stdout.trim();
/** chromium itself, or a wrapper that starts it at a higher priority or on a CPU of its own (BROWSER_SETUP). */
function browserExecutable(): string {
  if (BROWSER_SETUP !== 'pinned' && BROWSER_SETUP !== 'boost') return chromiumPath;
  const wrapper = join(mkdtempSync(join(tmpdir(), 'svc-bench-chromium-')), 'chromium');
  // setsid -w: chromium in a session (and so an autogroup) of its own, the wrapper waiting for it.
  writeFileSync(wrapper, `#!/bin/sh\nexec ${BROWSER_SETUP === 'pinned' ? 'taskset -c 1' : 'setsid -w'} ${chromiumPath} "$@"\n`);
  chmodSync(wrapper, 0o755);
  return wrapper;
}
const browser = await chromium.launch({ executablePath: browserExecutable(), headless: true, args: ['--no-sandbox', '--enable-precise-memory-info'] });
/** boost: chromium's autogroup (its session's, all its processes) at nice -10. */
const boostChromium = (): void => {
  if (BROWSER_SETUP !== 'boost') return;
  const browserPid = chromiumProcesses(process.pid).find((p) => p.type === 'browser')?.pid;
  try {
    if (browserPid !== undefined) writeFileSync(`/proc/${browserPid}/autogroup`, '-10');
  } catch {
    // not root, or no autogroups: reported in browserSetup
  }
};
boostChromium();
/** Each browser's processes: a page's long frames are told by its own browser's threads. */
const browserPids = new Set(chromiumProcesses(process.pid).map((p) => p.pid));
const sharedBrowser = COMPARE_SETUP === undefined ? undefined : await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--enable-precise-memory-info'] });
const sharedBrowserPids = new Set(chromiumProcesses(process.pid).map((p) => p.pid).filter((pid) => !browserPids.has(pid)));
// nice: every thread of the API server's process and of this one (the threads this one starts
// later — writers, the reader thread — inherit it from the main thread), chromium already apart.
if (BROWSER_SETUP === 'nice')
  for (const pid of [clusterProcess.pid!, process.pid]) for (const tid of threadIds(pid)) setPriority(tid, 10);

// By resourceVersion, when its patch was sent and when the API server answered it (epoch ms): the
// store's commit lies between, so the two give the latency's upper and lower bound. Matched to
// each page's applied times at its harvests; an applied version whose answer is not in yet waits
// for the next harvest.
const committed = new Map<string, { sent: number; answered: number }>();
let startEpoch = 0;

/** One page under test: its table opened, its frames and applied versions harvested. */
interface PageUnderTest {
  readonly label: string;
  readonly page: Page;
  /** Which browser it is in: the first (BROWSER_SETUP's) or the second (COMPARE_SETUP's). */
  readonly inBrowser: 'first' | 'shared';
  readonly cdp: CDPSession;
  readonly loadedMs: number;
  readonly latencies: number[];
  readonly fromSend: number[];
  /** The two parts of store → DOM: store → read off the stream in the page, and read → DOM (waiting in the page's JS). */
  readonly toPage: number[];
  readonly inPage: number[];
  /** Store → DOM latencies by the 10-second window of the run their write was answered in: a backlog grows window by window. */
  readonly byWindow: Map<number, number[]>;
  readonly frames: number[];
  /** Gaps of the frames a forced GC (the heap figure's) fell in: the bench's doing, not the page's. */
  readonly gcFrames: number[];
  readonly heap: { atSecond: number; mb: number }[];
  /** Gaps over 50 ms (not a forced GC's), and the page's Long Animation Frame and long task entries. */
  readonly longFrames: LongFrame[];
  readonly animationFrames: AnimationFrameEntry[];
  readonly longTasks: LongTaskEntry[];
  waiting: (string | number)[];
  /** A GC mark came last in a harvest: the next harvest's first gap is the GC's. */
  waitingGcMark: boolean;
  unmatched: number;
  metricsAtStart: Record<string, number>;
}

async function openPage(label: string, script: string | undefined, inBrowser: 'first' | 'shared' = 'first'): Promise<PageUnderTest> {
  // bypassCSP: the driver's own probes are strings evaluated in the page, which its CSP (no eval) refuses.
  const page = await (inBrowser === 'first' ? browser : sharedBrowser!).newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  if (script !== undefined) await page.route('**/ui/app.js', (route) => route.fulfill({ status: 200, contentType: 'text/javascript; charset=utf-8', body: script }));
  // Every animation frame's gap to the one before, and when each resourceVersion reached the DOM
  // and was read off the stream (epoch ms), harvested and cleared by the driver every second.
  // A string, not a function: tsx would wrap a function's inner names in a helper the page lacks.
  // A gap over 50 ms is kept with its times (epoch ms; flagged when a forced GC's: the frame after
  // the mark) and is a \`svc-long-frame\` measure in a trace; chromium's own account of long
  // frames (Long Animation Frames, with the scripts in them) and long tasks are kept too.
  await page.addInitScript(`
    window.frames_ = [];
    window.applied_ = [];
    window.longFrames_ = [];
    window.loafs_ = [];
    window.longTasks_ = [];
    let last = performance.now();
    const epoch = (t) => performance.timeOrigin + t;
    const tick = (now) => {
      const gap = now - last;
      if (gap > 50) {
        window.longFrames_.push(epoch(last), epoch(now), window.frames_[window.frames_.length - 1] === -1 ? 1 : 0);
        performance.measure('svc-long-frame', { start: last, end: now });
      }
      window.frames_.push(gap); last = now; requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    try {
      new PerformanceObserver((list) => { for (const e of list.getEntries()) window.loafs_.push({ start: epoch(e.startTime), duration: e.duration, blockingDuration: e.blockingDuration, renderStart: epoch(e.renderStart), styleAndLayoutStart: e.styleAndLayoutStart > 0 ? epoch(e.styleAndLayoutStart) : 0, scripts: e.scripts.filter((s) => s.duration >= 5).map((s) => ({ invoker: s.invoker, fn: s.sourceFunctionName + ' ' + (s.sourceURL || '').split('/').pop() + ':' + s.sourceCharPosition, duration: s.duration, layout: s.forcedStyleAndLayoutDuration })) }); }).observe({ type: 'long-animation-frame' });
      new PerformanceObserver((list) => { for (const e of list.getEntries()) window.longTasks_.push({ start: epoch(e.startTime), duration: e.duration }); }).observe({ type: 'longtask' });
    } catch {}
    window.svcDashboardApplied = (versions, received) => { const at = performance.timeOrigin + performance.now(); for (let i = 0; i < versions.length; i++) window.applied_.push(versions[i], at, received === undefined ? at : performance.timeOrigin + received[i]); };
  `);
  await page.goto(dashboard.url);
  await page.locator('li[data-type="pods"]').click();
  await page.locator('#namespace option[value="bench"]').waitFor({ state: 'attached' });
  const opened = performance.now();
  await page.locator('#namespace').selectOption('bench');
  // Page expressions as strings: this file is type-checked without the DOM library.
  await page.waitForFunction(`document.getElementById('row-count')?.textContent === ${JSON.stringify(`${PODS} pods`)}`, undefined, { timeout: 300_000 });
  const loadedMs = performance.now() - opened;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  return { label, page, inBrowser, cdp, loadedMs, latencies: [], fromSend: [], toPage: [], inPage: [], byWindow: new Map(), frames: [], gcFrames: [], heap: [], longFrames: [], animationFrames: [], longTasks: [], waiting: [], waitingGcMark: false, unmatched: 0, metricsAtStart: {} };
}

/**
 * The JS heap after a full GC: what the page keeps, not what it has not collected yet. The GC
 * stops the page's main thread; the frame gap it falls in is marked (-1 before it) and counted
 * apart.
 */
async function heapMB(p: PageUnderTest): Promise<number> {
  await p.page.evaluate('window.frames_.push(-1)');
  await p.cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = (await p.cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  return +(usedSize / 2 ** 20).toFixed(1);
}

/** DevTools' Performance metrics of the page: CPU times, task times, layout and style counts. */
async function pageMetrics(p: PageUnderTest): Promise<Record<string, number>> {
  return Object.fromEntries(((await p.cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] }).metrics.map((m) => [m.name, m.value]));
}

async function harvest(p: PageUnderTest): Promise<void> {
  const [gaps, applied, longFrames, loafs, longTasks] = await p.page.evaluate<[number[], (string | number)[], number[], AnimationFrameEntry[], LongTaskEntry[]]>(
    '(() => { const r = [window.frames_, window.applied_, window.longFrames_, window.loafs_, window.longTasks_]; window.frames_ = []; window.applied_ = []; window.longFrames_ = []; window.loafs_ = []; window.longTasks_ = []; return r; })()',
  );
  for (let i = 0; i < longFrames.length; i += 3) if (longFrames[i + 2] === 0) p.longFrames.push({ start: longFrames[i]!, end: longFrames[i + 1]! });
  p.animationFrames.push(...loafs);
  p.longTasks.push(...longTasks);
  for (let i = 0; i < gaps.length; i++) {
    if (gaps[i] === -1) {
      if (i + 1 < gaps.length) p.gcFrames.push(gaps[++i]!);
      else p.waitingGcMark = true;
    } else if (p.waitingGcMark) {
      p.waitingGcMark = false;
      p.gcFrames.push(gaps[i]!);
    } else p.frames.push(gaps[i]!);
  }
  const all = [...p.waiting, ...applied];
  const previous = p.waiting.length;
  p.waiting = [];
  for (let i = 0; i < all.length; i += 3) {
    const version = all[i] as string;
    const at = committed.get(version);
    if (at === undefined) {
      if (i >= previous) p.waiting.push(version, all[i + 1]!, all[i + 2]!);
      else p.unmatched++;
      continue;
    }
    const domAt = all[i + 1] as number;
    const readAt = all[i + 2] as number;
    const latency = Math.max(0, domAt - at.answered);
    p.latencies.push(latency);
    p.fromSend.push(domAt - at.sent);
    p.toPage.push(Math.max(0, readAt - at.answered));
    p.inPage.push(domAt - readAt);
    const window = Math.floor((at.answered - startEpoch) / 10_000);
    let values = p.byWindow.get(window);
    if (values === undefined) p.byWindow.set(window, (values = []));
    values.push(latency);
  }
}

const pages = [await openPage('page', PROFILE_PAGE === undefined ? undefined : await bundleUi(new URL('../../src/dashboard/ui/main.ts', import.meta.url).pathname, { minify: false }))];
if (COMPARE_UI !== undefined) pages.push(await openPage(`page built from ${COMPARE_UI}`, await bundleUi(COMPARE_UI)));
if (sharedBrowser !== undefined) pages.push(await openPage('page in a second chromium, set up shared', undefined, 'shared'));
for (const p of pages) {
  await p.page.evaluate('window.frames_ = []; window.applied_ = []; window.longFrames_ = []; window.loafs_ = []; window.longTasks_ = []');
  p.heap.push({ atSecond: 0, mb: await heapMB(p) });
}

// Readers beside the page, in this process (undici, one line at a time): the same Table watch
// through the same proxy, and straight from the API server. Their latencies against the page's
// tell where time is spent: in the server (all three), the proxy (the proxied reader and the
// page) or chromium (the page's alone).
const readersAbort = new AbortController();
const apiAgent = new Agent({ connect: { ca: connection.caData }, bodyTimeout: 0 });
/** A Node reader of the pods' Table watch at `base`; a watch the server ends is opened again. */
function nodeReader(base: string, headers: Record<string, string>, dispatcher?: Dispatcher) {
  const arrived = new Map<string, number>();
  const reader = { arrived, reopened: 0, done: Promise.resolve() };
  reader.done = (async () => {
    let from: string | undefined;
    while (!readersAbort.signal.aborted) {
      try {
        const res = await request(`${base}api/v1/namespaces/bench/pods?watch=true&allowWatchBookmarks=true${from === undefined ? '' : `&resourceVersion=${from}`}`, {
          headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io', ...headers },
          signal: readersAbort.signal,
          bodyTimeout: 0,
          ...(dispatcher === undefined ? {} : { dispatcher }),
        });
        await readTableWatch(res.body, (type, version, at) => {
          from = version;
          if (type === 'MODIFIED') arrived.set(version, at);
        });
      } catch {
        // aborted at the end, or the watch broke: opened again below unless aborted
      }
      // The server ends a watch that falls 1,000 events behind: how often is reported.
      if (!readersAbort.signal.aborted) reader.reopened++;
    }
  })();
  return reader;
}
const proxiedReader = nodeReader(dashboard.url, {});
const directReader = nodeReader(`${connection.server}/`, { authorization: `Bearer ${connection.token ?? ''}` }, apiAgent);
// The same direct watch read on a worker thread of its own (watch-reader.ts), away from the proxy's thread.
const readerThread = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./watch-reader.ts', import.meta.url).href)}); })`, {
  eval: true,
  workerData: { server: connection.server, token: connection.token, caData: connection.caData },
});
await new Promise((resolve) => readerThread.once('message', resolve));

// The stream: RATE patches a second (as far as the writers get), spread over WRITERS worker threads.
type WriterMessage = { kind: 'ready' } | { kind: 'answered'; batch: (string | number)[] } | { kind: 'done'; sent: number; failed: number };
let done = 0;
let failed = 0;
const writers = await Promise.all(
  Array.from({ length: WRITERS }, (_, offset) => {
    // Node 20's workers take no --import: the worker registers tsx itself, then loads the writer.
    const writer = new URL('./patch-writer.ts', import.meta.url).href;
    const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(writer)}); })`, {
      eval: true,
      workerData: { connection: { server: connection.server, token: connection.token, caData: connection.caData }, names, rate: RATE / WRITERS, seconds: SECONDS, concurrency: Math.ceil(CONCURRENCY / WRITERS), offset, stride: WRITERS },
    });
    const exited = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: WriterMessage) => {
        if (message.kind === 'done') failed += message.failed;
        if (message.kind !== 'answered') return;
        for (let i = 0; i < message.batch.length; i += 3) committed.set(message.batch[i] as string, { sent: message.batch[i + 1] as number, answered: message.batch[i + 2] as number });
        done += message.batch.length / 3;
      });
      worker.on('error', reject);
      worker.on('exit', () => resolve());
    });
    return new Promise<{ worker: Worker; exited: Promise<void> }>((resolve) => worker.once('message', () => resolve({ worker, exited })));
  }),
);
const loadStart = loadavg();
// CPU per write: this process (dashboard server, its proxy, the Node reader, the writers' threads),
// the API server's process, and each page (DevTools' Performance metrics).
for (const p of pages) p.metricsAtStart = await pageMetrics(p);
if (PROFILE_PAGE !== undefined) {
  await pages[0]!.cdp.send('Profiler.enable');
  await pages[0]!.cdp.send('Profiler.start');
}
if (PROFILE_SERVER !== undefined) clusterProcess.send('profile-start');
if (TRACE_PAGE !== undefined)
  await browser.startTracing(pages[0]!.page, { path: TRACE_PAGE, categories: ['devtools.timeline', 'v8', 'v8.gc', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'toplevel', 'blink.user_timing', 'cc', 'viz', 'gpu'] });
// Chromium's threads, the API server's and this process's main threads: run and run-queue wait.
const sampledThreads = [...chromiumThreads(process.pid), mainThread('api-server main', clusterProcess.pid!), mainThread('bench main', process.pid)];
const sampler = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./schedstat-sampler.ts', import.meta.url).href)}); })`, { eval: true, workerData: { threads: sampledThreads, intervalMs: SCHED_SAMPLE_MS } });
await new Promise((resolve) => sampler.once('message', resolve));
const clusterCpuAtStart = (await clusterCpu()).micros;
const cpuAtStart = process.cpuUsage();
const start = performance.now();
startEpoch = Date.now();
let lastHarvest = start;
let lastHeap = start;
let harvesting: Promise<void> | undefined;
const harvester = setInterval(() => {
  const now = performance.now();
  // Every second: each harvest is an evaluate in the page, kept small.
  if (harvesting !== undefined || now - lastHarvest < 1_000) return;
  lastHarvest = now;
  const measureHeap = now - lastHeap > 60_000;
  if (measureHeap) lastHeap = now;
  harvesting = (async () => {
    for (const p of pages) {
      await harvest(p);
      if (measureHeap) p.heap.push({ atSecond: Math.round((now - start) / 1000), mb: await heapMB(p) });
    }
  })().finally(() => (harvesting = undefined));
}, 250);
for (const { worker } of writers) worker.postMessage('start');
await Promise.all(writers.map((w) => w.exited));
clearInterval(harvester);
await harvesting;
const streamSeconds = (performance.now() - start) / 1000;
const streamEndEpoch = Date.now();
const sampled = await new Promise<{ threads: string[]; samples: number[][] }>((resolve) => {
  sampler.once('message', resolve);
  sampler.postMessage('stop');
});
await sampler.terminate();
if (TRACE_PAGE !== undefined) await browser.stopTracing();
const loadEnd = loadavg();
const driverCpu = process.cpuUsage(cpuAtStart);
const clusterAtEnd = await clusterCpu();
const clusterCpuMicros = clusterAtEnd.micros - clusterCpuAtStart;
const serverProfile =
  PROFILE_SERVER === undefined
    ? undefined
    : await new Promise<unknown>((resolve) => {
        clusterProcess.once('message', (message: ClusterMessage) => resolve(message.kind === 'profile' ? message.split : undefined));
        clusterProcess.send('profile-stop');
      });
const metricsAtEnd = await Promise.all(pages.map(pageMetrics));
/** The page's functions by self time over the stream (sampled), when PROFILE_PAGE asked. */
let profileTop: { fn: string; selfPercent: number }[] | undefined;
if (PROFILE_PAGE !== undefined) {
  type ProfileNode = { id: number; hitCount?: number; callFrame: { functionName: string; url: string; lineNumber: number } };
  const { profile } = (await pages[0]!.cdp.send('Profiler.stop')) as { profile: { nodes: ProfileNode[] } };
  writeFileSync(PROFILE_PAGE, JSON.stringify(profile));
  const self = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'}${url === '' ? '' : ` ${url.split('/').pop()}:${lineNumber + 1}`}`;
    self.set(name, (self.get(name) ?? 0) + (node.hitCount ?? 0));
    total += node.hitCount ?? 0;
  }
  profileTop = [...self].sort(([, a], [, b]) => b - a).slice(0, 15).map(([fn, hits]) => ({ fn, selfPercent: +((100 * hits) / Math.max(1, total)).toFixed(1) }));
}
// The last events reach the pages; the rest of the tables' frames are counted.
await pages[0]!.page.waitForTimeout(2_000);
for (const p of pages) {
  await harvest(p);
  p.heap.push({ atSecond: Math.round(streamSeconds), mb: await heapMB(p) });
}
readersAbort.abort();
const threadRead = new Promise<{ arrived: (string | number)[]; reopened: number }>((resolve) => readerThread.once('message', resolve));
readerThread.postMessage('stop');
const { arrived: threadArrived, reopened: threadReopened } = await threadRead;
await readerThread.terminate();
await Promise.all([proxiedReader.done, directReader.done]);
await apiAgent.close();

/** The processes of a page's browser: its browser process and every chromium process under it. */
function processesOf(p: PageUnderTest): Set<number> {
  const browserPid = chromiumProcesses(process.pid).find((c) => c.type === 'browser' && (p.inBrowser === 'first' ? browserPids : sharedBrowserPids).has(c.pid))?.pid;
  return browserPid === undefined ? new Set() : new Set([browserPid, ...chromiumProcesses(browserPid).map((c) => c.pid)]);
}
/** The set-up asked for, and what chromium's processes got: their nice values and CPUs. */
function browserSetup() {
  // Per sampled thread: chromium sets some of its threads' nice itself (its compositors, say);
  // and its process's autogroup (a session's share of the CPU, and its nice).
  const threads: Record<string, string> = {};
  for (const t of sampledThreads) {
    const dir = t.path.slice(0, -'/schedstat'.length);
    try {
      const stat = readFileSync(`${dir}/stat`, 'utf8');
      const cpus = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`${dir}/status`, 'utf8'))?.[1] ?? '?';
      const group = readFileSync(`${dir.slice(0, dir.indexOf('/task/'))}/autogroup`, 'utf8').trim();
      threads[t.label] = `nice ${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]}, CPUs ${cpus}, ${group}`;
    } catch {
      // gone
    }
  }
  return { mode: BROWSER_SETUP, threads };
}
const q = (values: number[], p: number) => +(values[Math.min(values.length - 1, Math.floor(p * values.length))] ?? 0).toFixed(1);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const quantiles = (values: number[]) => {
  const s = sorted(values);
  return { p50: q(s, 0.5), p99: q(s, 0.99), max: q(s, 1) };
};
const perWrite = (seconds: number) => +((seconds * 1e6) / Math.max(1, done)).toFixed(1);
const threadReader = { arrived: new Map<string, number>(), reopened: threadReopened };
for (let i = 0; i < threadArrived.length; i += 2) threadReader.arrived.set(threadArrived[i] as string, threadArrived[i + 1] as number);
const readerReport = (reader: { arrived: Map<string, number>; reopened: number }) => {
  const latencies = [...reader.arrived].flatMap(([version, at]) => {
    const answered = committed.get(version)?.answered;
    return answered === undefined ? [] : [Math.max(0, at - answered)];
  });
  return { reopened: reader.reopened, events: latencies.length, ...quantiles(latencies) };
};
const pageReport = async (p: PageUnderTest, atEnd: Record<string, number>) => {
  const spent = (name: string) => (atEnd[name] ?? 0) - (p.metricsAtStart[name] ?? 0);
  const frames = sorted(p.frames);
  return {
    tableLoadedMs: Math.round(p.loadedMs),
    rowsInDom: await p.page.locator('tr.row').count(),
    storeToDomMs: { events: p.latencies.length, unmatched: p.unmatched + p.waiting.length / 3, fromAnswer: quantiles(p.latencies), fromSend: quantiles(p.fromSend), storeToPageRead: quantiles(p.toPage), pageReadToDom: quantiles(p.inPage) },
    storeToDomByWindow: [...p.byWindow].sort(([a], [b]) => a - b).map(([window, values]) => ({ fromSecond: window * 10, events: values.length, ...quantiles(values) })),
    cpuPerWriteMicros: {
      // CPU time, not wall time: the renderer's main thread, and the whole renderer process.
      mainThread: perWrite(spent('ThreadTime')),
      rendererProcess: perWrite(spent('ProcessTime')),
      // Wall time of the main thread's tasks and of the script in them (inflated by a loaded machine).
      taskWall: perWrite(spent('TaskDuration')),
      scriptWall: perWrite(spent('ScriptDuration')),
    },
    // Counts, which a loaded machine does not inflate: how often the page laid out and restyled.
    layoutsPerSecond: +(spent('LayoutCount') / streamSeconds).toFixed(1),
    styleRecalcsPerSecond: +(spent('RecalcStyleCount') / streamSeconds).toFixed(1),
    frames: frames.length,
    frameGapMs: { p50: q(frames, 0.5), p99: q(frames, 0.99), max: q(frames, 1), over50: frames.filter((f) => f > 50).length },
    frameGapsOfForcedGcMs: p.gcFrames,
    heapAfterGcMB: p.heap,
    longFrameAccount: explainLongFrames({ pids: processesOf(p), longFrames: p.longFrames.filter((f) => f.start >= startEpoch && f.end <= streamEndEpoch), animationFrames: p.animationFrames, longTasks: p.longTasks, sampled, streamStart: startEpoch, streamEnd: streamEndEpoch }),
  };
};
console.log(
  JSON.stringify(
    {
      pods: PODS,
      seconds: +streamSeconds.toFixed(0),
      browserSetup: browserSetup(),
      ...(COMPARE_SETUP === undefined ? {} : { compareSetup: COMPARE_SETUP }),
      loadAverage: { start: loadStart.map((l) => +l.toFixed(2)), end: loadEnd.map((l) => +l.toFixed(2)) },
      writesPerSecond: Math.round(done / streamSeconds),
      writesFailed: failed,
      cpuPerWriteMicros: { apiServerProcess: perWrite(clusterCpuMicros / 1e6), driverProcess: perWrite((driverCpu.user + driverCpu.system) / 1e6) },
      // A timer's lateness in the API server's process: its loop turns' length (docs/benchmarks.md).
      apiServerLoopDelayMs: clusterAtEnd.loopDelayMs,
      storeToNodeReaderMs: readerReport(proxiedReader),
      storeToNodeReaderWithoutProxyMs: readerReport(directReader),
      storeToReaderThreadWithoutProxyMs: readerReport(threadReader),
      ...(profileTop === undefined ? {} : { pageProfileTopSelf: profileTop }),
      ...(serverProfile === undefined ? {} : { apiServerProfile: serverProfile }),
      ...Object.fromEntries(await Promise.all(pages.map(async (p, i) => [p.label, await pageReport(p, metricsAtEnd[i]!)] as const))),
    },
    null,
    2,
  ),
);
await browser.close();
await sharedBrowser?.close();
await dashboard.close();
await client.destroy();
clusterProcess.send('stop');
await new Promise((resolve) => clusterProcess.once('exit', resolve));
