// Restart of a controller over OBJECTS owned objects at their desired state (issue #21): the
// secret-mirror controller brings OBJECTS ConfigMaps their Secrets, stops, and a fresh one (new
// informers, new client) starts over the same cluster. Reported: the first run, and the restarted
// run's writes (must be zero: the bench exits 1 otherwise), time to sync and to every key reconciled.
// The cluster is svc/testing's (in-process API server, memory store, HTTPS loopback).
//   npm run bench:controller-restart            (OBJECTS=10000)
import { builtin, Informer, type Client } from '../../src/client/index.js';
import type { ControllerResult } from '../../controllers/index.js';
import { startTestCluster } from '../../src/testing/index.js';
import { fillSources, until } from './fill.js';
import { MIRROR_LABEL, secretMirror, type MirrorSecret, type SourceConfigMap } from './secret-mirror.js';

const OBJECTS = Number(process.env['OBJECTS'] ?? 10_000);
const NS = 'bench';

function run(client: Client) {
  const configMaps = new Informer<SourceConfigMap>(client, builtin.configMaps, { namespace: NS, labelSelector: MIRROR_LABEL });
  const secrets = new Informer<MirrorSecret>(client, builtin.secrets, { namespace: NS });
  const reconciled = new Set<string>();
  let failures = 0;
  const subscription = secretMirror({ configMaps, secrets, client, concurrency: 16 }).subscribe((r: ControllerResult) => {
    reconciled.add(r.key);
    if (r.type !== 'awaitChange') failures++;
  });
  return {
    configMaps,
    secrets,
    reconciled,
    failures: () => failures,
    stop() {
      subscription.unsubscribe();
      configMaps.stop();
      secrets.stop();
    },
  };
}

const cluster = await startTestCluster({ namespaces: [NS] });
console.log(`node ${process.version}, ${process.platform}/${process.arch}; ${OBJECTS} ConfigMaps each owning a Secret; svc/testing cluster (memory store, HTTPS loopback, in-process)\n`);

let t0 = performance.now();
await fillSources(cluster.client, NS, OBJECTS);
const fillS = (performance.now() - t0) / 1000;

t0 = performance.now();
const first = run(cluster.newClient({ userAgent: 'first-run' }));
await until(() => first.secrets.store.size === OBJECTS && first.reconciled.size === OBJECTS);
const firstS = (performance.now() - t0) / 1000;
first.stop();

const revision = await cluster.store.revision();
t0 = performance.now();
const restarted = run(cluster.newClient({ userAgent: 'restarted' }));
await until(() => restarted.configMaps.hasSynced() && restarted.secrets.hasSynced());
const syncS = (performance.now() - t0) / 1000;
await until(() => restarted.reconciled.size === OBJECTS);
const allS = (performance.now() - t0) / 1000;
// Late writes would show here: give the restarted controller its own events back first.
await new Promise((resolve) => setTimeout(resolve, 1_000));
const writes = cluster.writes('restarted');
const moved = (await cluster.store.revision()) - revision;
restarted.stop();

console.log('| objects | fill, 64 creates in flight (s) | first run: Secrets made (s), writes | restart: caches synced (s) | restart: every key reconciled (s) | restart: writes | store revisions moved | failed reconciles |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
console.log(`| ${OBJECTS} | ${fillS.toFixed(1)} | ${firstS.toFixed(1)}, ${cluster.writes('first-run')} | ${syncS.toFixed(2)} | ${allS.toFixed(2)} | ${writes} | ${moved} | ${restarted.failures()} |`);
await cluster.stop();
if (writes !== 0 || moved !== 0) {
  console.error(`FAIL: the restarted controller made ${writes} writes (store moved ${moved} revisions); expected 0`);
  process.exit(1);
}
console.log('\nzero writes on restart: ok');
