// API server benchmark: GET of one object against a bare Fastify route answering the same bytes,
// and creates/s on the sqlite store, all through one loopback load generator in this process
// while the servers run in a child process.
//   npm run bench:apiserver
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { load, type LoadResult } from '../support/load.js';

const child = spawn(process.execPath, [...(process.env['SERVER_FLAGS']?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', new URL('./server.ts', import.meta.url).pathname], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
const { api, bare, token, bytes } = JSON.parse(first) as { api: number; bare: number; token: string; bytes: number };
const path = () => '/api/v1/namespaces/default/configmaps/target';
const auth = { authorization: `Bearer ${token}` };

/**
 * The server process's CPU time so far in ms (user + system, from /proc): CPU per request moves
 * far less with the machine's load than requests per second, which the load generator, sharing
 * the cores, also paces.
 */
function serverCpuMs(): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
}

const GETS = 60_000;
const rounds: { target: string; result: LoadResult; cpuUsPerRequest: number }[] = [];
const measured = async (target: string, run: () => Promise<LoadResult>) => {
  const before = serverCpuMs();
  const result = await run();
  rounds.push({ target, result, cpuUsPerRequest: ((serverCpuMs() - before) * 1000) / GETS });
};
// Alternate the two targets so drift in the machine's load touches both alike.
for (let round = 0; round < 3; round++) {
  await measured('bare', () => load({ origin: `http://127.0.0.1:${bare}`, path, requests: GETS, connections: 32, expectStatus: 200 }));
  await measured('api', () => load({ origin: `http://127.0.0.1:${api}`, path, headers: auth, requests: GETS, connections: 32, expectStatus: 200 }));
}
const best = (target: string) => rounds.filter((r) => r.target === target).map((r) => r.result).sort((a, b) => b.perSecond - a.perSecond)[0]!;
const leastCpu = (target: string) => Math.min(...rounds.filter((r) => r.target === target).map((r) => r.cpuUsPerRequest));

const creates = await load({
  origin: `http://127.0.0.1:${api}`,
  method: 'POST',
  path: () => '/api/v1/namespaces/default/configmaps',
  headers: { ...auth, 'content-type': 'application/json' },
  body: (i) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { key: 'x'.repeat(1024) } }),
  requests: 20_000,
  connections: 64,
  expectStatus: 201,
});
child.kill('SIGTERM');

const row = (name: string, r: LoadResult) => `| ${name} | ${r.perSecond.toLocaleString('en-US')} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} |`;
console.log(`GET of one ConfigMap (${bytes} bytes), 32 connections, best of 3 rounds of ${GETS.toLocaleString('en-US')}; creates: 64 connections\n`);
console.log('| case | requests/s | p50 ms | p99 ms | errors |');
console.log('| --- | --- | --- | --- | --- |');
console.log(row('bare Fastify route, same bytes', best('bare')));
console.log(row('svc-apiserver GET (sqlite, token auth)', best('api')));
console.log(row('svc-apiserver POST create (sqlite, 64 writers)', creates));
console.log(`\nGET throughput relative to the bare route: ${((100 * best('api').perSecond) / best('bare').perSecond).toFixed(0)} %`);
console.log(
  `server CPU per GET (least of 3 rounds): bare route ${leastCpu('bare').toFixed(1)} µs, svc-apiserver ${leastCpu('api').toFixed(1)} µs: the bare route's CPU is ${((100 * leastCpu('bare')) / leastCpu('api')).toFixed(0)} % of svc's`,
);
