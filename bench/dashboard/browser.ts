// The dashboard in chromium under load (issue #25): PODS pods in one namespace shown in the live
// pods table, then a stream of label patches to them at RATE per second for SECONDS. Reported:
// time from opening the pods table to all rows counted, the write rate the driver reached, the
// page's frames during the stream (gaps between animation frames: max, p99, how many over 50 ms),
// store → DOM latency (from the API server's answer to a patch — the write is in the store — to
// the animation frame that put its resourceVersion in the table: the page's
// `svcDashboardApplied` hook), and the JS heap after a forced GC at the start, every minute and at
// the end (flat = no growth). The API server, the dashboard server and this driver share one
// process; chromium is its own. The load average is printed beside the figures.
//   npm run bench:dashboard          (PODS=10000 RATE=1000 SECONDS=300 by default)
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { builtin } from '../../src/client/index.js';
import { startDashboard } from '../../src/dashboard/index.js';
import { startTestCluster } from '../../src/testing/index.js';

const PODS = Number(process.env['PODS'] ?? 10_000);
const RATE = Number(process.env['RATE'] ?? 1000);
const SECONDS = Number(process.env['SECONDS'] ?? 300);
const CONCURRENCY = Number(process.env['CONCURRENCY'] ?? 128);

const cluster = await startTestCluster({ namespaces: ['bench'] });
const names = Array.from({ length: PODS }, (_, i) => `pod-${String(i).padStart(5, '0')}`);
let next = 0;
await Promise.all(
  Array.from({ length: 64 }, async () => {
    while (next < names.length) {
      const name = names[next++]!;
      await cluster.client.create(builtin.pods, { metadata: { name, namespace: 'bench', labels: { app: 'bench' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } as never);
    }
  }),
);
const dashboard = await startDashboard({ connection: cluster.connection, port: 0 });
// --enable-precise-memory-info: performance.memory unrounded.
const browser = await chromium.launch({ executablePath: spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).stdout.trim(), headless: true, args: ['--no-sandbox', '--enable-precise-memory-info'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
// Every animation frame's gap to the one before, and when each resourceVersion reached the DOM
// (epoch ms), both harvested and cleared by the driver every few seconds.
// A string, not a function: tsx would wrap a function's inner names in a helper the page lacks.
await page.addInitScript(`
  window.frames_ = [];
  window.applied_ = [];
  let last = performance.now();
  const tick = (now) => { window.frames_.push(now - last); last = now; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  window.svcDashboardApplied = (versions) => { const at = performance.timeOrigin + performance.now(); for (const v of versions) window.applied_.push(v, at); };
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
/** The JS heap after a full GC: what the page keeps, not what it has not collected yet. */
const heapMB = async (): Promise<number> => {
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  return +(usedSize / 2 ** 20).toFixed(1);
};
await page.evaluate('window.frames_ = []; window.applied_ = []');
const heap: { atSecond: number; mb: number }[] = [{ atSecond: 0, mb: await heapMB() }];

// By resourceVersion, when its patch was sent and when the API server answered it (epoch ms): the
// store's commit lies between, so the two give the latency's upper and lower bound. Matched to the
// page's applied times at each harvest, then forgotten; an applied version whose answer is not in
// yet waits for the next harvest.
const committed = new Map<string, { sent: number; answered: number }>();
const latencies: number[] = [];
const fromSend: number[] = [];
let waiting: (string | number)[] = [];
const frames: number[] = [];
let unmatched = 0;
const harvest = async (): Promise<void> => {
  const [gaps, applied] = await page.evaluate<[number[], (string | number)[]]>('(() => { const r = [window.frames_, window.applied_]; window.frames_ = []; window.applied_ = []; return r; })()');
  frames.push(...gaps);
  const all = [...waiting, ...applied];
  const previous = waiting.length;
  waiting = [];
  for (let i = 0; i < all.length; i += 2) {
    const version = all[i] as string;
    const at = committed.get(version);
    if (at === undefined) {
      if (i >= previous) waiting.push(version, all[i + 1]!);
      else unmatched++;
      continue;
    }
    committed.delete(version);
    latencies.push(Math.max(0, (all[i + 1] as number) - at.answered));
    fromSend.push((all[i + 1] as number) - at.sent);
  }
};

// The stream: RATE patches a second (as far as the driver gets), round robin over the pods.
const loadStart = loadavg();
const start = performance.now();
let sent = 0;
let done = 0;
let inflight = 0;
let lastHarvest = start;
let lastHeap = start;
let harvesting: Promise<void> | undefined;
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const now = performance.now();
    const elapsed = (now - start) / 1000;
    if (elapsed >= SECONDS) {
      clearInterval(timer);
      const wait = setInterval(() => inflight === 0 && harvesting === undefined && (clearInterval(wait), resolve()), 10);
      return;
    }
    if (harvesting === undefined && now - lastHarvest > 5_000) {
      lastHarvest = now;
      const measureHeap = now - lastHeap > 60_000;
      if (measureHeap) lastHeap = now;
      harvesting = (async () => {
        await harvest();
        if (measureHeap) heap.push({ atSecond: Math.round(elapsed), mb: await heapMB() });
      })().finally(() => (harvesting = undefined));
    }
    while (sent < elapsed * RATE && inflight < CONCURRENCY) {
      const name = names[sent % names.length]!;
      sent++;
      inflight++;
      const sentAt = Date.now();
      void cluster.client
        .patch(builtin.pods, name, { metadata: { labels: { tick: String(sent) } } }, { namespace: 'bench' })
        .then((pod) => {
          committed.set(pod.metadata.resourceVersion!, { sent: sentAt, answered: Date.now() });
          done++;
        })
        .finally(() => inflight--);
    }
  }, 5);
});
const streamSeconds = (performance.now() - start) / 1000;
const loadEnd = loadavg();
// The last events reach the page; the rest of the table's frames are counted.
await page.waitForTimeout(2_000);
await harvest();
heap.push({ atSecond: Math.round(streamSeconds), mb: await heapMB() });
frames.sort((a, b) => a - b);
latencies.sort((a, b) => a - b);
fromSend.sort((a, b) => a - b);
const q = (values: number[], p: number) => +(values[Math.min(values.length - 1, Math.floor(p * values.length))] ?? 0).toFixed(1);
console.log(
  JSON.stringify(
    {
      pods: PODS,
      seconds: +streamSeconds.toFixed(0),
      loadAverage: { start: loadStart.map((l) => +l.toFixed(2)), end: loadEnd.map((l) => +l.toFixed(2)) },
      tableLoadedMs: Math.round(loadedMs),
      rowsInDom: await page.locator('tr.row').count(),
      writesPerSecond: Math.round(done / streamSeconds),
      storeToDomMs: { events: latencies.length, unmatched: unmatched + waiting.length / 2, fromAnswer: { p50: q(latencies, 0.5), p99: q(latencies, 0.99), max: q(latencies, 1) }, fromSend: { p50: q(fromSend, 0.5), p99: q(fromSend, 0.99), max: q(fromSend, 1) } },
      frames: frames.length,
      frameGapMs: { p50: q(frames, 0.5), p99: q(frames, 0.99), max: q(frames, 1), over50: frames.filter((f) => f > 50).length },
      heapAfterGcMB: heap,
    },
    null,
    2,
  ),
);
await browser.close();
await dashboard.close();
await cluster.stop();
