// What Events cost the API server's heap, and what --event-ttl gives back (issue #26).
//   node --expose-gc --import tsx bench/apiserver/event-heap.ts [events=20000]
//
// A whole API server (buildApp) over sqlite, whose rows live in SQLite's own memory, not in V8's
// heap: what the heap gains with the Events is the server's (the watch cache's tree and its
// pooled strings, the written-objects budget). The Events are the stored form of one a node agent
// would write, created through the API once and then written straight to the store (as 20,000
// POSTs would, without the minute of requests): the watch cache takes them from the store's
// change feed as it does any write. The history window is 1 s and snapshots are off, so once a
// second has passed the heap holds the current objects only; an Event written after the wait (a
// "tick": the counts include them) lets the Events' history drop what is older (it evicts when
// it appends).
//
// Phases, each after two forced collections: the empty server; N Events held; the ttl run out
// and the sweep run (N DELETEDs through the cache), the history's second passed. Run twice in one
// process, Events in the watch cache (the default) and not (--watch-cache-events=false), one
// server after the other, each over a fresh database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { buildApp } from '../../src/apiserver/index.js';
import { SqliteStore } from '../../src/storage/index.js';

const N = Number(process.argv[2] ?? 20_000);
const TTL_SECONDS = 3600;
const TOKEN = 'bench-token';

const gc =
  (globalThis as { gc?: () => void }).gc ??
  (() => {
    throw new Error('run with node --expose-gc');
  });
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function measure(cacheEvents: boolean): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-event-heap-'));
  let clock = Date.now();
  const store = new SqliteStore({ path: join(dir, 'state.db'), now: () => clock, synchronous: 'NORMAL' });
  const app = await buildApp({
    store,
    authenticate: (headers) => (headers['authorization'] === `Bearer ${TOKEN}` ? { name: 'bench', uid: 'bench', groups: ['system:masters'] } : undefined),
    eventTtlSeconds: TTL_SECONDS,
    cacheEvents,
    watchHistoryWindowMs: 1000,
    featureGates: { ListFromCacheSnapshot: false },
  });
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: res.statusCode, body: JSON.parse(res.body) as { metadata?: { resourceVersion?: string; remainingItemCount?: number }; items?: unknown[] } };
  };
  /**
   * An Event written after the history window: a cache's history drops what is older when it
   * appends (or a watch starts), so the Events' cache must get an event of its own.
   */
  let ticks = 0;
  const settle = async () => {
    await sleep(1500);
    const tick = await call('POST', '/api/v1/namespaces/default/events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `tick-${++ticks}` },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'tick' },
      reason: 'Tick',
      type: 'Normal',
    });
    if (tick.status !== 201) throw new Error(`the tick Event: ${tick.status} ${JSON.stringify(tick.body)}`);
  };
  const count = async () => {
    const list = await call('GET', '/api/v1/events?limit=1');
    return (list.body.items?.length ?? 0) + (list.body.metadata?.remainingItemCount ?? 0);
  };

  // The Event a node agent writes when a container starts (the shape of kubelet's), made once through the API.
  const podUid = randomUUID();
  const sample = await call('POST', '/api/v1/namespaces/default/events', {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'web-7d4b9c8f6d-x2x9k.187b4c2d9e6f0a11', namespace: 'default' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-7d4b9c8f6d-x2x9k', uid: podUid, apiVersion: 'v1', resourceVersion: '123456', fieldPath: 'spec.containers{web}' },
    reason: 'Started',
    message: 'Started container web',
    source: { component: 'nodeagent', host: 'hollow-node-00042' },
    firstTimestamp: '2026-11-28T09:00:00Z',
    lastTimestamp: '2026-11-28T09:00:00Z',
    count: 1,
    type: 'Normal',
    reportingComponent: 'nodeagent',
    reportingInstance: 'hollow-node-00042',
  });
  if (sample.status !== 201) throw new Error(`creating the sample Event: ${sample.status} ${JSON.stringify(sample.body)}`);
  const sampleKey = '/registry/core/events/default/web-7d4b9c8f6d-x2x9k.187b4c2d9e6f0a11';
  const stored = await store.get(sampleKey);
  if (!stored) throw new Error(`the sample Event is not at ${sampleKey}`);
  const template = new TextDecoder().decode(stored.value);
  await settle();
  const before = heap();

  const enc = new TextEncoder();
  for (let i = 0; i < N; i += 1000) {
    const writes: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(N, i + 1000); j++) {
      const pod = `web-7d4b9c8f6d-${j.toString(36).padStart(5, '0')}`;
      const text = template
        .replaceAll('web-7d4b9c8f6d-x2x9k', pod)
        .replace(podUid, randomUUID())
        .replace(/"uid":"[0-9a-f-]{36}"/, `"uid":"${randomUUID()}"`);
      writes.push(store.create(`/registry/core/events/default/${pod}.187b4c2d9e6f0a11`, enc.encode(text), { ttlSeconds: TTL_SECONDS }));
    }
    await Promise.all(writes);
  }
  await settle();
  const held = await count();
  const withEvents = heap();

  clock += TTL_SECONDS * 1000;
  const due = await store.expire(0);
  await settle();
  const left = await count();
  const after = heap();

  await app.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  const mode = cacheEvents ? 'cached (default)' : 'not cached';
  return [
    `| ${mode}: empty server (one Event) | 1 | ${mb(before)} | 0 |`,
    `| ${mode}: ${N.toLocaleString('en-US')} Events stored | ${held.toLocaleString('en-US')} | ${mb(withEvents)} | ${mb(withEvents - before)} (${Math.round((withEvents - before) / N)} B an Event; stored JSON ${enc.encode(template).byteLength} B) |`,
    `| ${mode}: ttl run out, ${due.toLocaleString('en-US')} deleted by the sweep | ${left.toLocaleString('en-US')} | ${mb(after)} | ${mb(after - before)} |`,
  ];
}

const rows = [...(await measure(true)), ...(await measure(false))];
console.log('| watch cache of Events: phase | Events listed | heapUsed (MB) | vs its empty server (MB) |');
console.log('| --- | ---: | ---: | ---: |');
for (const row of rows) console.log(row);
