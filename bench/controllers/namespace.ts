// Namespace deletion benchmark (issue 9): a namespace of OBJECTS objects (ConfigMaps, Secrets,
// ServiceAccounts, Leases and Roles) on a real svc-apiserver (HTTPS, sqlite, loopback, a child
// process) is deleted, and the namespace controller empties and removes it. Reported: the time
// from the DELETE to the namespace being gone, and the controller's requests, at the default
// --svc-api-qps/--svc-api-burst (20/30) and at raised limits.
//   npm run bench:namespace           (OBJECTS=10000, QPS cases "20:30,200:300")
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Subject } from 'rxjs';
import type { KubeObject } from '../../src/api/index.js';
import { builtin, Client, DiscoveryCache, EventRecorder, InformerFactory, type Resource } from '../../src/client/index.js';
import { namespaceController } from '../../controllers/index.js';
import { throttle } from './throttle.js';

const OBJECTS = Number(process.env['OBJECTS'] ?? 10_000);
const CASES = (process.env['QPS'] ?? '20:30,200:300').split(',').map((c) => c.split(':').map(Number) as [number, number]);

const KINDS: [Resource<KubeObject>, string, string, Record<string, unknown>][] = [
  [builtin.configMaps, 'v1', 'ConfigMap', { data: { key: 'value'.repeat(20) } }],
  [builtin.secrets, 'v1', 'Secret', { stringData: { token: 'secret'.repeat(10) } }],
  [builtin.serviceAccounts, 'v1', 'ServiceAccount', {}],
  [builtin.leases, 'coordination.k8s.io/v1', 'Lease', { spec: { holderIdentity: 'bench' } }],
  [builtin.roles, 'rbac.authorization.k8s.io/v1', 'Role', { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }],
];

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-namespace-'));
const proc = spawn(process.execPath, ['--import', 'tsx', new URL('./server.ts', import.meta.url).pathname, dir], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
process.once('exit', () => proc.kill());
const { svcconfig } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: proc.stdout! }).once('line', resolve))) as { svcconfig: string };
const driver = await Client.fromSvcconfig(svcconfig);

async function fill(ns: string): Promise<void> {
  await driver.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < OBJECTS) {
        const i = next++;
        const [res, apiVersion, kind, body] = KINDS[i % KINDS.length]!;
        await driver.create(res, { apiVersion, kind, metadata: { name: `o-${i}`, namespace: ns }, ...body } as KubeObject);
      }
    }),
  );
}

async function gone(ns: string): Promise<void> {
  for (;;) {
    try {
      await driver.get(builtin.namespaces, ns);
    } catch (error) {
      if ((error as { code?: number }).code === 404) return;
      throw error;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

console.log(`node ${process.version}, ${process.platform}/${process.arch}; ${OBJECTS} objects of ${KINDS.length} types, sqlite, HTTPS loopback\n`);
console.log('| --svc-api-qps / --svc-api-burst | fill (s) | DELETE → namespace gone (s) | controller requests |');
console.log('| --- | --- | --- | --- |');
for (const [qps, burst] of CASES) {
  const ns = `bench-${qps}`;
  let started = performance.now();
  await fill(ns);
  const fillS = (performance.now() - started) / 1000;

  const client = await Client.fromSvcconfig(svcconfig);
  const limiter = throttle(client, { qps, burst });
  const stop$ = new Subject<void>();
  const informers = new InformerFactory(client);
  const loop = namespaceController({ name: 'namespace-controller', client, informers, discovery: new DiscoveryCache(client), events: new EventRecorder({ client, component: 'namespace-controller' }), stop$, controllerDefaults: () => ({}) }, { concurrency: 10, resyncPeriodMs: 300_000 }).subscribe();
  await informers.informer(builtin.namespaces).waitForSync();
  const before = limiter.requests();

  started = performance.now();
  await driver.delete(builtin.namespaces, ns);
  await gone(ns);
  const deleteS = (performance.now() - started) / 1000;
  console.log(`| ${qps} / ${burst} | ${fillS.toFixed(1)} | ${deleteS.toFixed(2)} | ${limiter.requests() - before} |`);

  stop$.next();
  loop.unsubscribe();
  informers.stop();
  limiter.stop();
  await client.destroy();
}

await driver.destroy();
proc.send('stop');
await new Promise((resolve) => proc.once('exit', resolve));
rmSync(dir, { recursive: true, force: true });
