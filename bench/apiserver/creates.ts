// The create path against its own storage, measured in one run: a child process holds the API
// server on a sqlite store; rounds alternate between N creates through HTTP (64 keep-alive
// connections, loopback, this process's undici load generator) and N creates of the same bytes
// on the same store in the server's process (64 in flight), so the machine's load touches both
// alike. Prints creates/s of each, their ratio and the server's CPU per HTTP create.
//   npm run bench:creates   (CREATES=20000 ROUNDS=3; STORE=off; SERVER_FLAGS="--cpu-prof --cpu-prof-dir=DIR")
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { load, type LoadResult } from '../support/load.js';

const N = Number(process.env['CREATES'] ?? 20_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
// STORE=off leaves the store's rounds out (for a CPU profile of the HTTP path alone).
const STORE = process.env['STORE'] !== 'off';
const child = fork(new URL('./creates-server.ts', import.meta.url).pathname, [], {
  execArgv: [...(process.env['SERVER_FLAGS']?.split(' ').filter(Boolean) ?? []), '--import', 'tsx'],
  stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
});
const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
const { port, token, bytes } = JSON.parse(first) as { port: number; token: string; bytes: number };
const ask = async <T>(message: unknown): Promise<T> => {
  const answer = once(child, 'message') as Promise<[T]>;
  child.send(message as never);
  return (await answer)[0];
};
const cpuMs = async () => (await ask<{ cpuMs: number }>('cpu')).cpuMs;

const rows: { round: number; http: LoadResult; cpuUs: number; storePerSecond: number }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const before = await cpuMs();
  const http = await load({
    origin: `http://127.0.0.1:${port}`,
    method: 'POST',
    path: () => '/api/v1/namespaces/default/configmaps',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: (i) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${round}-${i}` }, data: { key: 'x'.repeat(1024) } }),
    requests: N,
    connections: 64,
    expectStatus: 201,
  });
  const cpuUs = ((await cpuMs()) - before) * 1000 / http.requests;
  const { ms } = STORE ? await ask<{ ms: number }>({ store: N }) : { ms: Number.NaN };
  rows.push({ round, http, cpuUs, storePerSecond: Math.round((N * 1000) / ms) });
}
child.send('stop');

console.log(`${N.toLocaleString('en-US')} ConfigMaps of ${bytes} stored bytes per round, 64 writers, sqlite; rounds alternate HTTP and store\n`);
console.log('| round | HTTP creates/s | p50 / p99 ms | errors | store alone creates/s | HTTP ÷ store | server CPU per HTTP create |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(
    `| ${r.round + 1} | ${r.http.perSecond.toLocaleString('en-US')} | ${r.http.p50Ms} / ${r.http.p99Ms} | ${r.http.errors} | ${r.storePerSecond.toLocaleString('en-US')} | ${((100 * r.http.perSecond) / r.storePerSecond).toFixed(1)} % | ${r.cpuUs.toFixed(0)} µs |`,
  );
}
