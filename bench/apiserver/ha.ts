// What high availability costs the write path: ConfigMap creates/s through the API with 64
// writers, on one svc-apiserver over sqlite (the anchor), one over a 3-member etcd cluster, and
// three over that cluster with the writers spread round-robin across them (docs/ha.md). Each
// setup is started, measured in rounds, and stopped in turn, in one run: read the ratios.
//   npm run bench:ha
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { call, startApiServerProcess, type ApiServerProcess } from '../../test/faults/apiserver-process.js';
import { startHaControlPlane } from '../../test/faults/ha-control-plane.js';

const WRITERS = 64;
const CREATES = 4000;
const ROUNDS = 2;

interface Result {
  readonly perSecond: number;
  /** The API server processes' CPU time (user + system, all servers summed) per create. */
  readonly serverCpuMsPerCreate: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
}

/** A process's CPU time so far in ms, from /proc (clock ticks of 10 ms): it moves far less with the machine's load than creates/s. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** `CREATES` creates by `WRITERS` closed-loop writers, request i to server i mod n. */
async function createLoad(servers: readonly ApiServerProcess[], round: number): Promise<Result> {
  const agent = new Agent({ connect: { ca: servers[0]!.ca }, connections: WRITERS });
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const cpuBefore = servers.reduce((sum, s) => sum + cpuMs(s.pid), 0);
  const started = performance.now();
  const writer = async () => {
    while (next < CREATES) {
      const i = next++;
      const server = servers[i % servers.length]!;
      const t0 = performance.now();
      try {
        const res = await agent.request({
          origin: server.url,
          method: 'POST',
          path: '/api/v1/namespaces/bench/configmaps',
          headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `r${round}-${i}` }, data: { v: 'x'.repeat(512) } }),
        });
        await res.body.arrayBuffer();
        if (res.statusCode !== 201) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  const seconds = (performance.now() - started) / 1000;
  const serverCpuMsPerCreate = (servers.reduce((sum, s) => sum + cpuMs(s.pid), 0) - cpuBefore) / CREATES;
  await agent.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { perSecond: CREATES / seconds, serverCpuMsPerCreate, p50Ms: at(0.5), p99Ms: at(0.99), errors };
}

async function measure(name: string, servers: readonly ApiServerProcess[]): Promise<{ name: string; best: Result; load: number }> {
  const created = await call(servers[0]!, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  if (created.status !== 201) throw new Error(`namespace: ${created.status} ${JSON.stringify(created.body)}`);
  const results: Result[] = [];
  for (let round = 0; round < ROUNDS; round++) results.push(await createLoad(servers, round));
  const best = results.sort((a, b) => b.perSecond - a.perSecond)[0]!;
  return { name, best, load: loadavg()[0]! };
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-ha-'));
const rows: Awaited<ReturnType<typeof measure>>[] = [];
try {
  const sqlite = await startApiServerProcess(join(dir, 'sqlite'), ['--storage=sqlite']);
  rows.push(await measure('1 server, sqlite', [sqlite]));
  await sqlite.stop();

  const one = await startHaControlPlane(join(dir, 'one'), 1);
  rows.push(await measure('1 server, 3-member etcd', one.servers));
  await one.stop();

  const three = await startHaControlPlane(join(dir, 'three'), 3);
  rows.push(await measure('3 servers, 3-member etcd (writers round-robin)', three.servers));
  await three.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const anchor = rows[0]!.best.perSecond;
console.log(`${WRITERS} writers, ${CREATES} creates of a ConfigMap with 512 bytes of data per round, best of ${ROUNDS}`);
console.log('| setup | creates/s | × sqlite | servers\' CPU ms per create | p50 ms | p99 ms | errors | load (1 min) |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(`| ${r.name} | ${Math.round(r.best.perSecond).toLocaleString('en-US')} | ${(r.best.perSecond / anchor).toFixed(2)} | ${r.best.serverCpuMsPerCreate.toFixed(2)} | ${r.best.p50Ms.toFixed(1)} | ${r.best.p99Ms.toFixed(1)} | ${r.best.errors} | ${r.load.toFixed(1)} |`);
}
process.exit(0);
