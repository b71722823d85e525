// Watch cache benchmark: fan-out to filtered watchers, and lists served from memory.
//   node --expose-gc --import tsx bench/watch-cache/run.ts
// Times come from mitata's `measure` (mean of its samples); heap figures from
// process.memoryUsage().heapUsed after a forced gc, so run with --expose-gc.
import { measure } from 'mitata';
import { MemoryStore, type KeyValue, type Store } from '../../src/storage/index.js';
import { WatchCache, type CacheFilter } from '../../src/watch-cache/index.js';
import { boundedSink } from '../../src/apiserver/watch/bounded-sink.js';

interface Obj {
  metadata: { name: string; namespace: string; resourceVersion?: string; labels: Record<string, string>; annotations?: Record<string, string> };
  spec: { replicas: number; note: string };
}

const WATCHERS = 1_000;
const UPDATES = 1_000;
const FANOUT_OBJECTS = 1_000;
const TEAMS = 10;
const LIST_OBJECTS = 100_000;
const PAGE = 500;

const enc = new TextEncoder();
const dec = new TextDecoder();
const prefix = '/registry/bench/';
const keyOf = (i: number) => `${prefix}ns${i % 50}/o${String(i).padStart(6, '0')}`;

function object(i: number, n: number, padding: number): Obj {
  return {
    metadata: { name: `o${i}`, namespace: `ns${i % 50}`, labels: { team: `t${i % TEAMS}`, app: 'bench' }, ...(padding ? { annotations: { blob: 'x'.repeat(padding) } } : {}) },
    spec: { replicas: n, note: 'a watch cache benchmark object' },
  };
}
const decode = (kv: KeyValue, revision: number): Obj => {
  const o = JSON.parse(dec.decode(kv.value)) as Obj;
  o.metadata.resourceVersion = String(revision);
  return o;
};

const gc = (globalThis as { gc?: () => void }).gc;
function heap(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}
const ms = (ns: number) => (ns / 1e6).toFixed(ns < 1e7 ? 2 : 0);
const us = (ns: number) => (ns / 1e3).toFixed(1);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const rows: [string, string][] = [];
const row = (what: string, value: string) => {
  rows.push([what, value]);
  console.error(`${what}: ${value}`);
};

async function fill(store: Store, count: number, padding: number): Promise<void> {
  for (let i = 0; i < count; i += 256) {
    const batch: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(count, i + 256); j++) batch.push(store.create(keyOf(j), enc.encode(JSON.stringify(object(j, 0, padding)))));
    await Promise.all(batch);
  }
}

async function started(store: Store): Promise<WatchCache<Obj>> {
  const cache = new WatchCache<Obj>({ store, prefix, decode });
  cache.start();
  await cache.ready;
  return cache;
}

async function fanout(): Promise<void> {
  const store = new MemoryStore();
  await fill(store, FANOUT_OBJECTS, 0);
  const cache = await started(store);
  const revisions = new Map<string, number>();
  for (const v of cache.list().items) revisions.set(v.key, v.revision);
  let i = 0;
  const updates = async () => {
    for (let u = 0; u < UPDATES; u++, i++) {
      const key = keyOf(i % FANOUT_OBJECTS);
      const kv = await store.update(key, enc.encode(JSON.stringify(object(i % FANOUT_OBJECTS, i, 0))), revisions.get(key)!);
      revisions.set(key, kv.modRevision);
    }
  };
  const opts = { min_samples: 5, max_samples: 20, min_cpu_time: 1e9 };
  const bare = await measure(updates, opts);

  // Each watcher selects one team (a tenth of the objects) and writes what it gets, as the API
  // server does: through a bounded sink into a consumer, here one that takes the shared bytes.
  let delivered = 0;
  let bytes = 0;
  const before = heap();
  const subs = [];
  for (let w = 0; w < WATCHERS; w++) {
    const team = `t${w % TEAMS}`;
    const filter: CacheFilter<Obj> = (v) => v.object.metadata.labels['team'] === team;
    const sink = boundedSink(cache.watch({ filter }), {
      limit: 1000,
      write: (event) => {
        delivered++;
        bytes += event.object.bytes().length;
        return true;
      },
      onDrain: () => {},
    });
    subs.push(sink.subscribe());
  }
  const perWatcher = (heap() - before) / WATCHERS;
  const fanned = await measure(updates, opts);
  const extra = fanned.avg - bare.avg;
  row(`apply ${fmt(UPDATES)} updates, no watchers (ms)`, ms(bare.avg));
  row(`apply ${fmt(UPDATES)} updates, ${fmt(WATCHERS)} filtered watchers (ms)`, ms(fanned.avg));
  row('fan-out cost per event, all watchers (µs)', us(extra / UPDATES));
  row('fan-out cost per event per watcher (ns)', (extra / UPDATES / WATCHERS).toFixed(0));
  row('events delivered per update (10 % match)', (delivered / (i - UPDATES * (bare.samples.length + 0))).toFixed(0));
  row('heap per idle watcher incl. sink (bytes)', fmt(perWatcher));
  void bytes;
  for (const s of subs) s.unsubscribe();
  cache.stop();
  await store.close();
}

async function lists(): Promise<void> {
  const store = new MemoryStore();
  console.error(`filling ${fmt(LIST_OBJECTS)} × 2 KiB ...`);
  await fill(store, LIST_OBJECTS, 1900);
  const size = (await store.get(keyOf(0)))!.value.length;
  const before = heap();
  const t0 = performance.now();
  const cache = await started(store);
  row(`start: list + decode ${fmt(LIST_OBJECTS)} × ${(size / 1024).toFixed(1)} KiB (ms)`, (performance.now() - t0).toFixed(0));
  row('heap of the cached objects (MiB)', ((heap() - before) / 2 ** 20).toFixed(0));

  const full = await measure(() => cache.list(), { min_samples: 5, max_samples: 20, min_cpu_time: 1e9 });
  row(`list all ${fmt(LIST_OBJECTS)} (ms)`, ms(full.avg));
  const t1 = performance.now();
  let total = 0;
  for (const v of cache.list().items) total += v.bytes().length;
  row(`first serialization of all ${fmt(LIST_OBJECTS)} (ms, once per version)`, (performance.now() - t1).toFixed(0));
  const warm = await measure(
    () => {
      let n = 0;
      for (const v of cache.list().items) n += v.bytes().length;
      return n;
    },
    { min_samples: 5, max_samples: 20, min_cpu_time: 1e9 },
  );
  row(`list all + bytes, already serialized (ms; ${(total / 2 ** 20).toFixed(0)} MiB)`, ms(warm.avg));

  const page = await measure(() => cache.list({ limit: PAGE }), { min_cpu_time: 1e9 });
  row(`one ${PAGE}-item page incl. remaining count (µs)`, us(page.avg));
  const mid = cache.list({ limit: LIST_OBJECTS / 2 }).items.at(-1)!.key;
  const rev = cache.revision;
  // Later writes: the next page comes from the snapshot taken at `rev`.
  for (let i = 0; i < 100; i++) {
    const key = keyOf(i);
    await store.update(key, enc.encode(JSON.stringify(object(i, 1, 1900))), cache.get(key)!.revision);
  }
  const cont = await measure(() => cache.listAt(rev, { startKey: `${mid}!`, limit: PAGE }), { min_cpu_time: 1e9 });
  row(`one ${PAGE}-item continue page from a snapshot (µs)`, us(cont.avg));
  const team: CacheFilter<Obj> = (v) => v.object.metadata.labels['team'] === 't3';
  const filtered = await measure(() => cache.list({ limit: PAGE, filter: team }), { min_samples: 5, min_cpu_time: 1e9 });
  row(`one ${PAGE}-item page with a label filter (10 % match) incl. remaining (ms)`, ms(filtered.avg));
  const fromStore = await measure(() => store.list(prefix, { limit: PAGE }), { min_cpu_time: 1e9 });
  row(`anchor: the same page from the memory store (µs)`, us(fromStore.avg));
  cache.stop();
  await store.close();
}

if (!gc) console.error('note: run with --expose-gc for the heap figures');
await fanout();
await lists();
console.log('| measure | value |');
console.log('| --- | ---: |');
for (const [what, value] of rows) console.log(`| ${what} | ${value} |`);
