// API server benchmark: GET of one object against a bare Fastify route answering the same bytes,
// and creates/s on the sqlite store, all through one loopback load generator in this process
// while the servers run in a child process.
//   npm run bench:apiserver
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { load, type LoadResult } from '../support/load.js';

const child = spawn(process.execPath, [...(process.env['SERVER_FLAGS']?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', new URL('./server.ts', import.meta.url).pathname], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
const { api, bare, token, bytes } = JSON.parse(first) as { api: number; bare: number; token: string; bytes: number };
const path = () => '/api/v1/namespaces/default/configmaps/target';
const auth = { authorization: `Bearer ${token}` };

const GETS = 60_000;
const rounds: { target: string; result: LoadResult }[] = [];
// Alternate the two targets so drift in the machine's load touches both alike.
for (let round = 0; round < 3; round++) {
  rounds.push({ target: 'bare', result: await load({ origin: `http://127.0.0.1:${bare}`, path, requests: GETS, connections: 32, expectStatus: 200 }) });
  rounds.push({ target: 'api', result: await load({ origin: `http://127.0.0.1:${api}`, path, headers: auth, requests: GETS, connections: 32, expectStatus: 200 }) });
}
const best = (target: string) => rounds.filter((r) => r.target === target).map((r) => r.result).sort((a, b) => b.perSecond - a.perSecond)[0]!;

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
