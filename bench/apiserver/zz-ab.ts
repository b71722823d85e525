import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { load } from '../support/load.js';
const start = (dir: string, env: Record<string, string> = {}) => {
  const child = spawn(process.execPath, ['--import', 'tsx', `${dir}/bench/apiserver/server.ts`], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  return new Promise<{ child: typeof child; api: number; token: string }>((resolve) => createInterface({ input: child.stdout }).once('line', (l) => resolve({ child, ...JSON.parse(l) })));
};
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const servers = { before: await start('/tmp/svc-before'), after: await start('/work/wt/overload'), noDefault: await start('/work/wt/overload', { AB_NO_DEFAULT: '1' }), noOnResponse: await start('/work/wt/overload', { AB_NO_METRICS: '1' }) };
const N = 30_000;
const results: Record<string, number[]> = Object.fromEntries(Object.keys(servers).map((k) => [k, []]));
for (let round = 0; round < 5; round++) {
  const names = Object.keys(servers) as (keyof typeof servers)[];
  for (const name of round % 2 ? names.reverse() : names) {
    const s = servers[name];
    const c0 = cpu(s.child.pid!);
    await load({ origin: `http://127.0.0.1:${s.api}`, path: () => '/api/v1/namespaces/default/configmaps/target', headers: { authorization: `Bearer ${s.token}` }, requests: N, connections: 32, expectStatus: 200 });
    results[name]!.push(((cpu(s.child.pid!) - c0) * 1000) / N);
  }
}
console.log(JSON.stringify(results));
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const [k, v] of Object.entries(results)) console.log(k, 'median', med(v), 'min', Math.min(...v));
for (const s of Object.values(servers)) s.child.kill('SIGTERM');
