// Child process of the list and fan-out benchmarks: the API server as built (dist/, so its memory
// is the daemon's, not a TypeScript loader's) on a sqlite store at the path given as argv[2],
// plain HTTP on loopback. It prints `{"port":…}` once it listens, answers the IPC message
// "memory" with its memoryUsage() after a full gc, and exits on "stop". Run with --expose-gc.
import { unauthorized } from '../../dist/src/api/index.js';
import { buildApp } from '../../dist/src/apiserver/index.js';
import { MemoryStore, SqliteStore } from '../../dist/src/storage/index.js';
import { statSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const TOKEN = 'bench-token';
const path = process.argv[2];
if (!path) throw new Error('usage: bench-server.mjs <state.db>');
// BENCH_STORE=memory measures the same server without the disk (to tell the two apart).
const store = process.env.BENCH_STORE === 'memory' ? new MemoryStore() : new SqliteStore({ path });
// BENCH_TRACE=1: every stall of the event loop over 50 ms on stderr, with what took the time: a
// garbage collection (with the heap after it), or a sqlite group commit (its duration and batch
// size, and whether it checkpointed: in WAL mode only a checkpoint writes the main database file).
if (process.env.BENCH_TRACE) {
  const t0 = performance.now();
  const at = () => `${((performance.now() - t0) / 1000).toFixed(3)} s`;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration > 20) {
        const m = process.memoryUsage();
        console.error(`[trace ${at()}] gc kind ${e.detail?.kind} ${e.duration.toFixed(1)} ms; heap ${(m.heapUsed / 2 ** 20).toFixed(0)} MB, external ${(m.external / 2 ** 20).toFixed(0)} MB, array buffers ${(m.arrayBuffers / 2 ** 20).toFixed(0)} MB`);
      }
    }
  }).observe({ entryTypes: ['gc'] });
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last > 60) console.error(`[trace ${at()}] event loop stalled ${(now - last - 10).toFixed(0)} ms`);
    last = now;
  }, 10).unref();
  if (typeof store.flush === 'function') {
    const flush = store.flush.bind(store);
    const written = () => statSync(path).mtimeMs;
    store.flush = () => {
      const n = store.pending.length;
      const before = written();
      const start = performance.now();
      flush();
      const ms = performance.now() - start;
      const checkpointed = written() !== before;
      if (ms > 30 || checkpointed) console.error(`[trace ${at()}] sqlite commit of ${n} writes took ${ms.toFixed(1)} ms${checkpointed ? ', with a checkpoint' : ''}`);
    };
  }
}
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
const started = performance.now();
const app = await buildApp({
  store,
  // BENCH_WATCH_WRITE_INTERVAL_MS: the server's --watch-write-interval (unset: its default).
  ...(process.env.BENCH_WATCH_WRITE_INTERVAL_MS ? { watchWriteIntervalMs: Number(process.env.BENCH_WATCH_WRITE_INTERVAL_MS) } : {}),
  authenticate: (headers) => {
    if (headers['authorization'] === `Bearer ${TOKEN}`) return { name: 'bench', uid: 'bench', groups: ['system:masters'] };
    throw unauthorized('Unauthorized');
  },
});
await app.listen({ host: '127.0.0.1', port: 0 });
const startMs = performance.now() - started;
// The pods' account: the API server makes none (svc-controller-manager's serviceaccount loop does).
const account = await app.inject({
  method: 'POST',
  url: '/api/v1/namespaces/default/serviceaccounts',
  headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  payload: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }),
});
if (account.statusCode !== 201 && account.statusCode !== 409) throw new Error(`default ServiceAccount: ${account.statusCode} ${account.body}`);

process.on('message', async (message) => {
  if (message === 'memory') {
    globalThis.gc?.();
    globalThis.gc?.();
    process.send({ memory: process.memoryUsage(), loopDelayMaxMs: loopDelay.max / 1e6, loopDelayP99Ms: loopDelay.percentile(99) / 1e6 });
    loopDelay.reset();
  } else if (message === 'stop') {
    await app.close();
    await store.close();
    process.exit(0);
  }
});
process.stdout.write(`${JSON.stringify({ port: app.server.address().port, startMs })}\n`);
