// Does a watch keep up when the API server's loop turns are long? A busy server handles many
// requests per turn, so the events of one turn come in a burst: here BURST store writes in one
// macrotask every PERIOD ms (the rest of the turn busy, as a loaded server's is), for SECONDS, to
// PODS pods, read by one watch (ACCEPT: the dashboard's Table by default, `application/json` for
// an informer's) in this process. Reported: the write rate, how many events the watch got by the
// end of the writes and 2 s later, and whether the server ended it as too slow. The watch's
// socket is full at 256 KiB unsent (SOCKET_BUDGET_BYTES, src/apiserver/request/settings.ts); before, at the socket's 16 KiB
// high-water mark, whose drain comes a turn later — docs/benchmarks.md (issue #25) has both.
//   node --import tsx bench/dashboard/watch-burst.ts      (BURST=80 PERIOD=60 SECONDS=10 PODS=1000)
import { Agent, request } from 'undici';
import { builtin } from '../../src/client/index.js';
import { startTestCluster } from '../../src/testing/index.js';

const BURST = Number(process.env['BURST'] ?? 80);
const PERIOD = Number(process.env['PERIOD'] ?? 60);
const SECONDS = Number(process.env['SECONDS'] ?? 10);
const PODS = Number(process.env['PODS'] ?? 1000);
const ACCEPT = process.env['ACCEPT'] ?? 'application/json;as=Table;v=v1;g=meta.k8s.io';

const cluster = await startTestCluster({ namespaces: ['bench'] });
const names = Array.from({ length: PODS }, (_, i) => `pod-${i}`);
for (let i = 0; i < PODS; i += 100) {
  await Promise.all(names.slice(i, i + 100).map((name) => cluster.client.create(builtin.pods, { metadata: { name, namespace: 'bench' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } as never)));
}
const { store } = cluster;
const listed = await store.list(`${store.prefix}core/pods/bench/`);
const pods = listed.items.map((item) => ({ key: item.key, object: JSON.parse(Buffer.from(item.value).toString()) as { metadata: { labels?: Record<string, string> } }, revision: item.modRevision }));

const agent = new Agent({ connect: { ca: cluster.caPem } });
const res = await request(`${cluster.url}/api/v1/namespaces/bench/pods?watch=true&resourceVersion=${listed.revision}`, { dispatcher: agent, headers: { accept: ACCEPT, authorization: `Bearer ${cluster.token}` }, bodyTimeout: 0 });
let received = 0;
let ended = false;
const reading = (async () => {
  for await (const chunk of res.body) {
    for (let at = (chunk as Buffer).indexOf(10); at >= 0; at = (chunk as Buffer).indexOf(10, at + 1)) received++;
  }
})()
  .catch(() => undefined)
  .finally(() => (ended = true));

let written = 0;
const start = performance.now();
while (performance.now() - start < SECONDS * 1000 && !ended) {
  const turn = performance.now();
  // One turn: each update commits inside its call and the awaits are microtasks.
  for (let k = 0; k < BURST; k++) {
    const pod = pods[written % pods.length]!;
    pod.object.metadata.labels = { tick: String(written) };
    pod.revision = (await store.update(pod.key, Buffer.from(JSON.stringify(pod.object)), pod.revision)).modRevision;
    written++;
  }
  while (performance.now() - turn < PERIOD * 0.8) {
    // busy, as the rest of a loaded server's turn is
  }
  await new Promise((resolve) => setImmediate(resolve));
}
const writeSeconds = (performance.now() - start) / 1000;
const receivedWhenWritesDone = received;
await new Promise((resolve) => setTimeout(resolve, 2000));
console.log(JSON.stringify({ accept: ACCEPT, burst: BURST, periodMs: PERIOD, writesPerSecond: Math.round(written / writeSeconds), written, receivedWhenWritesDone, receivedAfter2s: received, endedByServer: ended }));
res.body.destroy();
await reading;
await agent.close();
await cluster.stop();
