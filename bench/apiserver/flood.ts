// One client floods the API server with lists while another GETs one object: how long the other
// waits (p50/p99), with flow control as configured by default (--max-requests-inflight=400), with
// a tight limit (4 read-only seats, where the per-user fair queues decide who goes next), and with
// no limit (0). The server (flood-server.ts) and the flooder (flood-client.ts) run in child
// processes; the measured client runs here.
//   npm run bench:flood
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { load, type LoadResult } from '../support/load.js';

const FLOOD_CONNECTIONS = 64;
const FLOOD_MS = 12_000;
const OTHER_GETS = 2_000;

async function measure(maxInflight: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./flood-server.ts', import.meta.url).pathname], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, FLOOD_MAX_INFLIGHT: String(maxInflight) },
  });
  const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  const { port, objects } = JSON.parse(first) as { port: number; objects: number };
  const origin = `http://127.0.0.1:${port}`;
  const get = (maxMs: number) =>
    load({ origin, path: () => '/api/v1/namespaces/default/configmaps/target', headers: { authorization: 'Bearer other-token' }, requests: OTHER_GETS, connections: 1, maxMs, expectStatus: 200 });
  const quiet = await get(FLOOD_MS);
  const flooder = spawn(process.execPath, ['--import', 'tsx', new URL('./flood-client.ts', import.meta.url).pathname], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, FLOOD_ORIGIN: origin, FLOOD_CONNECTIONS: String(FLOOD_CONNECTIONS), FLOOD_MS: String(FLOOD_MS) },
  });
  const lines = createInterface({ input: flooder.stdout })[Symbol.asyncIterator]();
  await lines.next(); // "flooding"
  const floodRun = lines.next().then((line) => String(line.value));
  // Let the flood fill the seats and queues first.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const flooded = await get(FLOOD_MS - 3_000);
  const metrics = await (await fetch(`${origin}/metrics`, { headers: { authorization: 'Bearer admin-token' } })).text();
  const rejected = metrics
    .split('\n')
    .filter((line) => line.startsWith('apiserver_flowcontrol_rejected_requests_total{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  const flood = JSON.parse(await floodRun) as LoadResult;
  child.kill('SIGTERM');
  return { maxInflight, objects, quiet, flooded, flood, rejected };
}

const rows: Awaited<ReturnType<typeof measure>>[] = [];
for (const maxInflight of [400, 4, 0]) rows.push(await measure(maxInflight));

const ms = (r: LoadResult) => `${r.p50Ms} / ${r.p99Ms}`;
console.log(`One client lists ${rows[0]!.objects} ConfigMaps on ${FLOOD_CONNECTIONS} connections for ${FLOOD_MS / 1000} s; another GETs one ConfigMap on 1 connection (up to ${OTHER_GETS}).\n`);
console.log('| --max-requests-inflight | other GET alone p50 / p99 ms | other GET under flood p50 / p99 ms | other GETs refused | flood lists/s | flood lists refused (429) | refused, server count |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(`| ${r.maxInflight} | ${ms(r.quiet)} | ${ms(r.flooded)} | ${r.flooded.errors} of ${r.flooded.requests} | ${r.flood.perSecond} | ${r.flood.errors} of ${r.flood.requests} | ${r.rejected} |`);
}
