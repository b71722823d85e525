// Server CPU per HTTP create of two checkouts side by side: each runs
// bench/apiserver/creates-server.ts (sqlite, token auth, caller in system:masters) in a child, and
// rounds of creates (64 connections) alternate between them, so that the machine's load, which
// moves a lot on a shared machine, touches both alike.
//   git archive <commit> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/
//   cp bench/apiserver/creates-server.ts /tmp/before/bench/apiserver/   (when the commit lacks it)
//   AB_BEFORE=/tmp/before npm run bench:creates-ab        (ROUNDS=6 CREATES=10000)
import { fork } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { load } from '../support/load.js';
import { cpuTicks, MS_PER_TICK } from '../support/proc.js';

const before = process.env['AB_BEFORE'];
if (!before) throw new Error('AB_BEFORE must name a checkout of the commit to compare with');
const here = fileURLToPath(new URL('../..', import.meta.url));
const ROUNDS = Number(process.env['ROUNDS'] ?? 6);
const CREATES = Number(process.env['CREATES'] ?? 10_000);

async function start(dir: string) {
  const child = fork(`${dir}/bench/apiserver/creates-server.ts`, [], { cwd: dir, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  return { child, ...(JSON.parse(line) as { port: number; token: string }) };
}

const servers = { before: await start(before), after: await start(here) };
const perCreate: Record<keyof typeof servers, number[]> = { before: [], after: [] };
const rates: Record<keyof typeof servers, number[]> = { before: [], after: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const)) {
    const server = servers[name];
    const start = cpuTicks(server.child.pid!);
    const result = await load({
      origin: `http://127.0.0.1:${server.port}`,
      method: 'POST',
      path: () => '/api/v1/namespaces/default/configmaps',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: (i) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${round}-${i}` }, data: { key: 'x'.repeat(1024) } }),
      requests: CREATES,
      connections: 64,
      expectStatus: 201,
    });
    if (result.errors > 0) throw new Error(`${name}: ${result.errors} creates failed`);
    perCreate[name].push(((cpuTicks(server.child.pid!) - start) * MS_PER_TICK * 1000) / CREATES);
    rates[name].push(result.perSecond);
  }
}
for (const server of Object.values(servers)) server.child.send('stop');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`server CPU per HTTP create, µs, ${ROUNDS} alternating rounds of ${CREATES.toLocaleString('en-US')} (64 connections)`);
for (const name of ['before', 'after'] as const) {
  const values = perCreate[name];
  console.log(`${name}: ${values.map((v) => v.toFixed(0)).join(', ')}; median ${median(values).toFixed(0)}, least ${Math.min(...values).toFixed(0)}; creates/s median ${median(rates[name])}, best ${Math.max(...rates[name])}`);
}
