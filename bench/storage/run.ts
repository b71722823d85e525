// Storage benchmark: every backend in one run, etcd first as the anchor.
//   npm run bench:storage              (all backends)
//   npm run bench:storage -- sqlite    (a subset)
// Each figure comes from mitata's `measure`; throughput = operations per sample / mean sample time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure } from 'mitata';
import { firstValueFrom, take, toArray } from 'rxjs';
import { MemoryStore, SqliteStore, type Store } from '../../src/storage/index.js';

const VALUE = new Uint8Array(2048).fill(0x61);
const LIST_SIZES = [10_000, 100_000];
const WATCH_EVENTS = 10_000;

interface Backend {
  name: string;
  open(): Promise<{ store: Store; dispose(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'etcd',
    async open() {
      const { openEtcdStore } = await import('../../src/storage/etcd.js');
      const { startEtcd } = await import('../../test/support/etcd.js');
      const etcd = await startEtcd();
      const store = await openEtcdStore({ endpoints: [etcd.endpoint] });
      return { store, dispose: async () => (await store.close(), await etcd.stop()) };
    },
  },
  {
    name: 'sqlite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
      const store = new SqliteStore({ path: join(dir, 'state.db') });
      return { store, dispose: async () => (await store.close(), rmSync(dir, { recursive: true, force: true })) };
    },
  },
  {
    name: 'memory',
    async open() {
      const store = new MemoryStore();
      return { store, dispose: () => store.close() };
    },
  },
];

const perSecond = (opsPerSample: number, avgNs: number) => Math.round((opsPerSample * 1e9) / avgNs);
const fmt = (n: number) => n.toLocaleString('en-US');

async function fill(store: Store, prefix: string, count: number): Promise<void> {
  const width = 64;
  for (let i = 0; i < count; i += width) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + width); j++) batch.push(store.create(`${prefix}k${String(j).padStart(7, '0')}`, VALUE));
    await Promise.all(batch);
  }
}

async function benchBackend(backend: Backend): Promise<Record<string, string>> {
  const { store, dispose } = await backend.open();
  const row: Record<string, string> = { backend: backend.name };
  try {
    let n = 0;
    const seq = await measure(async () => {
      await store.create(`/registry/seq/k${n++}`, VALUE);
    }, { min_cpu_time: 2e9 });
    row['creates/s (1 writer)'] = fmt(perSecond(1, seq.avg));

    const conc = await measure(async () => {
      await store.create(`/registry/conc/k${n++}`, VALUE);
    }, { concurrency: 64, min_cpu_time: 2e9 });
    row['creates/s (64 writers)'] = fmt(perSecond(64, conc.avg));

    let g = 0;
    const gets = await measure(async () => {
      await store.get(`/registry/seq/k${g++ % 1000}`);
    }, { min_cpu_time: 1e9 });
    row['gets/s'] = fmt(perSecond(1, gets.avg));

    for (const size of LIST_SIZES) {
      const prefix = `/registry/list${size}/`;
      const before = await store.revision();
      await fill(store, prefix, size);
      const list = await measure(async () => {
        const { items } = await store.list(prefix);
        if (items.length !== size) throw new Error(`listed ${items.length} of ${size}`);
      }, { min_samples: 3, max_samples: 10, min_cpu_time: 1e9 });
      row[`list ${size / 1000}k × 2 KiB (ms)`] = (list.avg / 1e6).toFixed(0);
      if (size === LIST_SIZES[0]) {
        const watch = await measure(async () => {
          await firstValueFrom(store.watch(prefix, before).pipe(take(WATCH_EVENTS), toArray()));
        }, { min_samples: 3, max_samples: 10, min_cpu_time: 1e9 });
        row['watch events/s'] = fmt(perSecond(WATCH_EVENTS, watch.avg));
      }
    }
  } finally {
    await dispose();
  }
  return row;
}

const wanted = process.argv.slice(2);
const rows: Record<string, string>[] = [];
for (const backend of backends) {
  if (wanted.length > 0 && !wanted.includes(backend.name)) continue;
  console.error(`benchmarking ${backend.name} ...`);
  rows.push(await benchBackend(backend));
}
const columns = Object.keys(rows[0] ?? {});
console.log(`| ${columns.join(' | ')} |`);
console.log(`| ${columns.map(() => '---').join(' | ')} |`);
for (const r of rows) console.log(`| ${columns.map((c) => r[c] ?? '').join(' | ')} |`);
