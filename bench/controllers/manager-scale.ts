// The controller manager with every loop (`--controllers=*`) over PODS pods in SETS ReplicaSets
// (issue #22: RSS ≤ 200 MB, idle CPU ≤ 2 % at steady state). Three processes, so the manager's
// RSS and CPU are its own: a real svc-apiserver (bench/controllers/server.ts: HTTPS, sqlite in a
// temporary data dir), `svc-controller-manager` run through its CLI (src/cli, under tsx) with
// --svc-api-qps/--svc-api-burst raised so filling is not what the run waits on, and this driver,
// which creates the ReplicaSets and waits until every one reports its pods. No node runs the pods:
// they stay Pending (the steady state measured is the manager's, not a kubelet's). Then the
// manager's RSS (/proc/<pid>/status VmRSS) and CPU (utime + stime of /proc/<pid>/stat over
// IDLE_SECONDS, as a share of one core) are read with nothing changing in the cluster.
// MANAGER=dist runs the built CLI (dist/src/cli/svc-controller-manager.js, `npm run build` first)
// with plain node, as installed: tsx's loader thread and the source maps it keeps are not in its RSS.
//   npm run bench:controller-manager-scale            (SETS=1000 PODS_PER_SET=10 IDLE_SECONDS=30 MANAGER=tsx)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ReplicaSet } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';

const SETS = Number(process.env['SETS'] ?? 1_000);
const PER_SET = Number(process.env['PODS_PER_SET'] ?? 10);
const IDLE_SECONDS = Number(process.env['IDLE_SECONDS'] ?? 30);
const NS = 'bench';
const PODS = SETS * PER_SET;

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-manager-scale-'));
const server = spawn(process.execPath, ['--import', 'tsx', new URL('./server.ts', import.meta.url).pathname, dir], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
process.once('exit', () => server.kill());
const { svcconfig } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once('line', resolve))) as { svcconfig: string };
const driver = await Client.fromSvcconfig(svcconfig, { userAgent: 'bench-driver' });
await driver.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
// The pods' account before the manager starts (its serviceaccount loop would make it too, racing the first creates).
await driver.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NS } }, { namespace: NS });

const BUILT = process.env['MANAGER'] === 'dist';
const cli = BUILT ? new URL('../../dist/src/cli/svc-controller-manager.js', import.meta.url).pathname : new URL('../../src/cli/svc-controller-manager.ts', import.meta.url).pathname;
const manager = spawn(process.execPath, [...(BUILT ? [] : ['--import', 'tsx']), cli, `--svcconfig=${svcconfig}`, '--secure-port=0', '--leader-elect=false', '--controllers=*', '--svc-api-qps=2000', '--svc-api-burst=2000'], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
process.once('exit', () => manager.kill());
console.log(`node ${process.version}, ${process.platform}/${process.arch}; ${SETS} ReplicaSets × ${PER_SET} = ${PODS} pods; svc-controller-manager --controllers=* in its own process (CLI ${BUILT ? 'built, plain node' : 'under tsx'}), svc-apiserver on sqlite in another; pods stay Pending (no node runs them)\n`);

const t0 = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (next < SETS) {
      const name = `rs-${next++}`;
      const rs: ReplicaSet = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name, namespace: NS },
        spec: { replicas: PER_SET, selector: { matchLabels: { set: name } }, template: { metadata: { labels: { set: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
      };
      await driver.create(builtin.replicaSets, rs, { namespace: NS });
    }
  }),
);
// Steady: every ReplicaSet reports its pods (the manager made them all and wrote its status).
for (;;) {
  const sets = (await driver.list(builtin.replicaSets, { namespace: NS })).items;
  if (sets.length === SETS && sets.every((rs) => rs.status?.replicas === PER_SET && rs.status.observedGeneration === rs.metadata.generation)) break;
  await new Promise((resolve) => setTimeout(resolve, 1_000));
}
const fillS = (performance.now() - t0) / 1000;
const pods = (await driver.list(builtin.pods, { namespace: NS })).items.length;
// Let the last status writes and Events settle before the idle window.
await new Promise((resolve) => setTimeout(resolve, 5_000));

const pid = manager.pid!;
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const cpuTicks = () => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
};
const TICKS_PER_S = 100; // USER_HZ on Linux
const rssAtSteady = rssMb();
const ticks0 = cpuTicks();
const idle0 = performance.now();
await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1_000));
const idleS = (performance.now() - idle0) / 1000;
const cpuPercent = ((cpuTicks() - ticks0) / TICKS_PER_S / idleS) * 100;
const rssAfter = rssMb();
const load = loadavg().map((n) => n.toFixed(1)).join(', ');

manager.kill('SIGTERM');
await new Promise((resolve) => manager.once('exit', resolve));
await driver.destroy();
server.send('stop');
await new Promise((resolve) => server.once('exit', resolve));

console.log('| ReplicaSets | pods | fill to steady (s) | manager RSS at steady, after idle (MB) | manager idle CPU over the window (% of a core) | idle window (s) | load average (1, 5, 15 min) |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
console.log(`| ${SETS} | ${pods} | ${fillS.toFixed(1)} | ${rssAtSteady.toFixed(0)}, ${rssAfter.toFixed(0)} | ${cpuPercent.toFixed(2)} | ${idleS.toFixed(0)} | ${load} |`);
