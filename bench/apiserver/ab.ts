// Server CPU per GET of two checkouts side by side: each runs bench/apiserver/server.ts (sqlite,
// token auth, caller in system:masters) in a child, and rounds of GETs alternate between them so
// that the machine's load, which moves a lot on a shared machine, touches both alike.
//   git archive <commit> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/
//   AB_BEFORE=/tmp/before npm run bench:ab
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { load } from '../support/load.js';

const before = process.env['AB_BEFORE'];
if (!before) throw new Error('AB_BEFORE must name a checkout of the commit to compare with');
const here = fileURLToPath(new URL('../..', import.meta.url));
const ROUNDS = 5;
const GETS = 30_000;

async function start(dir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', `${dir}/bench/apiserver/server.ts`], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  return { child, ...(JSON.parse(line) as { api: number; token: string }) };
}

/** The child's CPU time so far in ms (user + system, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const servers = { before: await start(before), after: await start(here) };
const perGet: Record<keyof typeof servers, number[]> = { before: [], after: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const)) {
    const server = servers[name];
    const start = cpuMs(server.child.pid!);
    await load({ origin: `http://127.0.0.1:${server.api}`, path: () => '/api/v1/namespaces/default/configmaps/target', headers: { authorization: `Bearer ${server.token}` }, requests: GETS, connections: 32, expectStatus: 200 });
    perGet[name].push(((cpuMs(server.child.pid!) - start) * 1000) / GETS);
  }
}
for (const server of Object.values(servers)) server.child.kill('SIGTERM');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`server CPU per GET, µs, ${ROUNDS} alternating rounds of ${GETS.toLocaleString('en-US')} (the first warms up)`);
for (const [name, values] of Object.entries(perGet)) console.log(`${name}: ${values.map((v) => v.toFixed(1)).join(', ')}; median ${median(values).toFixed(1)}, least ${Math.min(...values).toFixed(1)}`);
