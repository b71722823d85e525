// A write's cost to a watch cache whose snapshot window is full: one key written 500 times a
// second (a 5,000-node cluster's Lease renewals) keeps 37,500 snapshots in the default 75 s
// window, and every write adds one and drops the oldest.
//   node --import tsx bench/watch-cache/snapshot-window.ts
// The clock is the cache's own (virtual), so the window fills without waiting.
import { measure } from 'mitata';
import { MemoryStore, type KeyValue } from '../../src/storage/index.js';
import { WatchCache } from '../../src/watch-cache/index.js';

const RATE = Number(process.env['RATE'] ?? 500);
const enc = new TextEncoder();
const dec = new TextDecoder();
const key = '/registry/leases/svc-node-lease/node-1';
const body = (n: number) => enc.encode(JSON.stringify({ metadata: { name: 'node-1' }, spec: { renewTime: n } }));

let now = 0;
const store = new MemoryStore();
const cache = new WatchCache<unknown>({ store, prefix: '/registry/leases/', decode: (kv: KeyValue) => JSON.parse(dec.decode(kv.value)) as unknown, now: () => now });
cache.start();
await cache.ready;
let rev = (await store.create(key, body(0))).modRevision;
const write = async (n: number) => {
  now += 1000 / RATE;
  rev = (await store.update(key, body(n), rev)).modRevision;
};
// Fill the window: 80 s of writes at RATE.
for (let n = 1; n <= 80 * RATE; n++) await write(n);
let n = 80 * RATE;
const stats = await measure(async () => {
  await write(++n);
});
console.log(JSON.stringify({ rate: RATE, snapshotsKept: cache.stats().snapshots, updateMeanUs: Number((stats.avg / 1000).toFixed(2)), updateP99Us: Number((stats.p99 / 1000).toFixed(2)) }));
cache.stop();
await store.close();
