// Frames per write of a busy watch, with and without the write hold (--watch-write-interval,
// src/apiserver/watch/write-hold.ts), in one run: two in-process test clusters, one with the
// interval at 0 and one at INTERVAL_MS, each with one JSON watch on ConfigMaps while this process
// creates a ConfigMap on each, RATE a second (as renewals: one small object each); printed per cluster: events read,
// the socket reads they came in (`data` chunks of the response: at these rates each write of the
// server is read on its own), and events per read. A count, not a time: the machine's load moves
// it little (a starved server turn may carry two updates and write them together either way).
//   node --import tsx bench/apiserver/watch-write-hold.ts     (RATE=500 UPDATES=2000 INTERVAL_MS=10)
import { loadavg } from 'node:os';
import { Agent, request } from 'undici';
import { builtin } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';

const RATE = Number(process.env['RATE'] ?? 500);
const UPDATES = Number(process.env['UPDATES'] ?? 2000);
const INTERVAL_MS = Number(process.env['INTERVAL_MS'] ?? 10);
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

interface Side {
  readonly name: string;
  readonly cluster: TestCluster;
  readonly agent: Agent;
  events: number;
  reads: number;
  version: number;
}

async function side(name: string, watchWriteIntervalMs: number): Promise<Side> {
  const cluster = await startTestCluster({ namespaces: ['hold'], apiServer: { watchWriteIntervalMs } });
  const agent = new Agent({ connect: { ca: cluster.caPem } });
  const created = await cluster.client.create(builtin.configMaps, { metadata: { name: 'renewed', namespace: 'hold' }, data: { at: '0' } });
  const s: Side = { name, cluster, agent, events: 0, reads: 0, version: 0 };
  const res = await request(`${cluster.url}/api/v1/namespaces/hold/configmaps?watch=true&resourceVersion=${created.metadata!.resourceVersion}`, {
    dispatcher: agent,
    headers: { authorization: `Bearer ${cluster.token}` },
  });
  void (async () => {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      s.reads++;
      for (const byte of chunk) if (byte === 10) s.events++;
    }
  })().catch(() => undefined);
  return s;
}

console.log(`load before ${load()}`);
const sides = [await side('interval 0 (off)', 0), await side(`interval ${INTERVAL_MS} ms`, INTERVAL_MS)];
const spacing = 1000 / RATE;
const started = performance.now();
let inflight = 0;
for (let i = 1; i <= UPDATES; i++) {
  // Evenly spaced, one update in flight per side at most: each tends to have a server turn to itself.
  const due = started + i * spacing;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  for (const s of sides) {
    if (inflight >= 2 * sides.length) break;
    inflight++;
    void s.cluster.client
      .create(builtin.configMaps, { metadata: { name: `renewal-${i}`, namespace: 'hold' }, data: { at: String(i) } })
      .then(
        () => s.version++,
        (error: unknown) => void (s.version === 0 && i < 3 && console.error(String(error))),
      )
      .finally(() => inflight--);
  }
}
while (inflight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
await new Promise((resolve) => setTimeout(resolve, 200 + INTERVAL_MS));
const seconds = (performance.now() - started) / 1000;
for (const s of sides)
  console.log(
    JSON.stringify({ side: s.name, writes: s.version, 'writes/s': Math.round(s.version / seconds), events: s.events, reads: s.reads, 'events per read': Number((s.events / Math.max(1, s.reads)).toFixed(2)) }),
  );
console.log(`load after ${load()}`);
for (const s of sides) {
  await s.agent.close().catch(() => undefined);
  await s.cluster.stop();
}
process.exit(0);
