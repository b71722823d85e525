// ReplicaSet 0 → PODS pods (issue #22): how fast the replicaset-controller makes pods, as a share
// of the same server's bare create rate measured in the same run, and with the controller
// manager's default API limit (--svc-api-qps 20 --svc-api-burst 30) the rate that limit implies.
// No node runs the pods (they stay Pending: creation is what is measured). The cluster is
// svc/testing's (in-process API server, memory store, HTTPS loopback), shared by the loop.
//   npm run bench:replicaset            (PODS=5000, BARE_IN_FLIGHT=64, LIMITED_PODS=300)
import { Subject } from 'rxjs';
import type { ReplicaSet } from '../../src/api/index.js';
import { builtin, DiscoveryCache, EventRecorder, InformerFactory, type Client } from '../../src/client/index.js';
import { replicaSetController } from '../../controllers/index.js';
import { apiThrottle } from '../../operators/index.js';
import { startTestCluster } from '../../src/testing/index.js';
import { until } from './fill.js';

const PODS = Number(process.env['PODS'] ?? 5_000);
const BARE_IN_FLIGHT = Number(process.env['BARE_IN_FLIGHT'] ?? 64);
const LIMITED_PODS = Number(process.env['LIMITED_PODS'] ?? 300);
const container = { name: 'c', image: 'busybox' };

const cluster = await startTestCluster({ namespaces: ['bare', 'rs', 'limited'] });
console.log(`node ${process.version}, ${process.platform}/${process.arch}; svc/testing cluster (memory store, HTTPS loopback, in-process); ${PODS} pods\n`);

/** Bare creates: PODS pods, BARE_IN_FLIGHT at a time, by one client. */
async function bareRate(client: Client): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: BARE_IN_FLIGHT }, async () => {
      while (next < PODS) {
        const i = next++;
        await client.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `bare-${i}`, namespace: 'bare', labels: { app: 'bare' } }, spec: { containers: [container] } }, { namespace: 'bare' });
      }
    }),
  );
  return PODS / ((performance.now() - started) / 1000);
}

/** A ReplicaSet of `replicas` in `namespace` under the loop on `client`: pods per second until every pod exists, and the writes made. */
async function loopRate(client: Client, namespace: string, replicas: number, userAgent: string): Promise<{ rate: number; seconds: number; writes: number }> {
  const stop$ = new Subject<void>();
  const informers = new InformerFactory(client);
  // Its Events go through the same client (and limit), as the controller manager's do.
  const events = new EventRecorder({ client, component: 'replicaset-controller' });
  const subscription = replicaSetController({ name: 'replicaset-controller', client, informers, discovery: new DiscoveryCache(client), events, stop$, controllerDefaults: () => ({}) }, { concurrency: 5 }).subscribe();
  // The loop's own pod informer (the factory shares it): counting pods costs no second watch.
  const pods = informers.informer(builtin.pods, { ownerIndex: true });
  await pods.waitForSync();
  const inNamespace = () => pods.store.byIndex('namespace', namespace).length;
  const writesBefore = cluster.writes(userAgent);
  const rs: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'bench', namespace },
    spec: { replicas, selector: { matchLabels: { app: namespace } }, template: { metadata: { labels: { app: namespace } }, spec: { containers: [container] } } },
  };
  const started = performance.now();
  await cluster.client.create(builtin.replicaSets, rs, { namespace });
  await until(() => inNamespace() >= replicas);
  const seconds = (performance.now() - started) / 1000;
  const writes = cluster.writes(userAgent) - writesBefore;
  stop$.next();
  subscription.unsubscribe();
  informers.stop();
  return { rate: replicas / seconds, seconds, writes };
}

const bare = await bareRate(cluster.newClient({ userAgent: 'bare' }));
const fast = await loopRate(cluster.newClient({ userAgent: 'rs-unlimited' }), 'rs', PODS, 'rs-unlimited');
const limited = await loopRate(cluster.newClient({ userAgent: 'rs-limited', throttle: apiThrottle({ qps: 20, burst: 30 }) }), 'limited', LIMITED_PODS, 'rs-limited');
await cluster.stop();

console.log('| run | pods | time (s) | pods/s | share of bare | writes |');
console.log('| --- | --- | --- | --- | --- | --- |');
console.log(`| bare creates, ${BARE_IN_FLIGHT} in flight | ${PODS} | ${(PODS / bare).toFixed(1)} | ${bare.toFixed(0)} | 100 % | ${PODS} |`);
console.log(`| replicaset-controller, no API limit | ${PODS} | ${fast.seconds.toFixed(1)} | ${fast.rate.toFixed(0)} | ${((fast.rate / bare) * 100).toFixed(0)} % | ${fast.writes} |`);
console.log(`| replicaset-controller, --svc-api-qps 20 --svc-api-burst 30 | ${LIMITED_PODS} | ${limited.seconds.toFixed(1)} | ${limited.rate.toFixed(1)} (the bucket alone allows ${(LIMITED_PODS / ((LIMITED_PODS - 30) / 20)).toFixed(1)} for as many requests) | — | ${limited.writes} |`);
