// The dashboard in chromium under load (issue #25): PODS pods in one namespace shown in the live
// pods table, then a stream of label patches to them at RATE per second for SECONDS. Reported:
// time from opening the pods table to all rows counted, the write rate the driver reached, the
// page's frames during the stream (gaps between animation frames: max, p99, how many over 50 ms)
// and its JS heap before and after. The API server, the dashboard server and this driver share
// one process; chromium is its own.
//   npm run bench:dashboard          (PODS=10000 RATE=1000 SECONDS=20 by default)
import { spawnSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { builtin } from '../../src/client/index.js';
import { startDashboard } from '../../src/dashboard/index.js';
import { startTestCluster } from '../../src/testing/index.js';

const PODS = Number(process.env['PODS'] ?? 10_000);
const RATE = Number(process.env['RATE'] ?? 1000);
const SECONDS = Number(process.env['SECONDS'] ?? 20);
const CONCURRENCY = 64;

const cluster = await startTestCluster({ namespaces: ['bench'] });
const names = Array.from({ length: PODS }, (_, i) => `pod-${String(i).padStart(5, '0')}`);
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < names.length) {
      const name = names[next++]!;
      await cluster.client.create(builtin.pods, { metadata: { name, namespace: 'bench', labels: { app: 'bench' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } as never);
    }
  }),
);
const dashboard = await startDashboard({ connection: cluster.connection, port: 0 });
const browser = await chromium.launch({ executablePath: spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).stdout.trim(), headless: true, args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
// Every animation frame's gap to the one before, from page start.
// A string, not a function: tsx would wrap a function's inner names in a helper the page lacks.
await page.addInitScript(`
  window.frames_ = [];
  let last = performance.now();
  const tick = (now) => { window.frames_.push(now - last); last = now; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
`);
await page.goto(dashboard.url);
await page.locator('li[data-type="pods"]').click();
await page.locator('#namespace option[value="bench"]').waitFor({ state: 'attached' });
const opened = performance.now();
await page.locator('#namespace').selectOption('bench');
// Page expressions as strings: this file is type-checked without the DOM library.
await page.waitForFunction(`document.getElementById('row-count')?.textContent === ${JSON.stringify(`${PODS} pods`)}`, undefined, { timeout: 300_000 });
const loadedMs = performance.now() - opened;
const heap = () => page.evaluate<number>('performance.memory?.usedJSHeapSize ?? 0');
await page.evaluate('window.frames_ = []');
const heapBefore = await heap();

// The stream: RATE patches a second (as far as the driver gets), round robin over the pods.
const start = performance.now();
let sent = 0;
let inflight = 0;
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const elapsed = (performance.now() - start) / 1000;
    if (elapsed >= SECONDS) {
      clearInterval(timer);
      const wait = setInterval(() => inflight === 0 && (clearInterval(wait), resolve()), 10);
      return;
    }
    while (sent < elapsed * RATE && inflight < CONCURRENCY) {
      const name = names[sent % names.length]!;
      sent++;
      inflight++;
      void cluster.client.patch(builtin.pods, name, { metadata: { labels: { tick: String(sent) } } }, { namespace: 'bench' }).finally(() => inflight--);
    }
  }, 5);
});
const streamSeconds = (performance.now() - start) / 1000;
await page.waitForTimeout(1000);
const frames = (await page.evaluate<number[]>('window.frames_')).slice().sort((a, b) => a - b);
const heapAfter = await heap();
const p = (q: number) => frames[Math.min(frames.length - 1, Math.floor(q * frames.length))] ?? 0;
console.log(
  JSON.stringify(
    {
      pods: PODS,
      tableLoadedMs: Math.round(loadedMs),
      rowsInDom: await page.locator('tr.row').count(),
      writesPerSecond: Math.round(sent / streamSeconds),
      frames: frames.length,
      frameGapMs: { p50: +p(0.5).toFixed(1), p99: +p(0.99).toFixed(1), max: +p(1).toFixed(1), over50: frames.filter((f) => f > 50).length },
      heapMB: { before: +(heapBefore / 2 ** 20).toFixed(1), after: +(heapAfter / 2 ** 20).toFixed(1) },
    },
    null,
    2,
  ),
);
await browser.close();
await dashboard.close();
await cluster.stop();
