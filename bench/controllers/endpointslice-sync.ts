// The CPU of one endpointslice sync's computation (issue #24), apart from any write: PODS pods
// of one Service read through a real informer (its lazy views, as the loop reads them), the
// desired slices computed and planned against the slices they give, after FLIPS pods changed
// readiness — with the loop's EndpointCache (each pod's endpoints kept per pod version) and
// without (every pod read again). CPU time of the process, ROUNDS rounds each, alternating.
//   npm run bench:endpointslice-sync     (PODS=5000, FLIPS=200, ROUNDS=20)
import type { EndpointSlice, Pod } from '../../src/api/index.js';
import { builtin, InformerFactory } from '../../src/client/index.js';
import { desiredGroups, EndpointCache } from '../../controllers/index.js';
import { planSlices } from '../../controllers/service-endpoints/index.js';
import { startTestCluster } from '../../src/testing/index.js';
import { quantile } from './fill.js';

const PODS = Number(process.env['PODS'] ?? 5_000);
const FLIPS = Number(process.env['FLIPS'] ?? 200);
const ROUNDS = Number(process.env['ROUNDS'] ?? 20);
const NS = 'bench';
const ipOf = (i: number): string => `10.${64 + Math.floor(i / 65_536)}.${Math.floor(i / 256) % 256}.${i % 256}`;

const cluster = await startTestCluster({ namespaces: [NS] });
const admin = cluster.newClient({ userAgent: 'setup' });
const service = await admin.create(builtin.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'big', namespace: NS }, spec: { selector: { app: 'big' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } }, { namespace: NS });
let next = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < PODS) {
      const i = next++;
      await admin.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: NS, labels: { app: 'big' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }, { namespace: NS });
      await admin.patchStatus(builtin.pods, `p-${i}`, { status: { phase: 'Running', podIP: ipOf(i), podIPs: [{ ip: ipOf(i) }], conditions: [{ type: 'Ready', status: 'True' }] } }, { namespace: NS });
    }
  }),
);
process.stderr.write(`setup done\n`);
const informers = new InformerFactory(cluster.newClient({ userAgent: 'loop' }));
const pods = informers.informer(builtin.pods);
pods.start();
await pods.waitForSync();
const ready = new Array<boolean>(PODS).fill(true);
const cpu = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

// The slices as the server holds them after a sync: plain objects, 100 endpoints each.
const toSlices = (groups: ReturnType<typeof desiredGroups>): EndpointSlice[] =>
  groups.flatMap((group) => {
    const out: EndpointSlice[] = [];
    for (let at = 0; at < group.endpoints.length; at += 100)
      out.push(JSON.parse(JSON.stringify({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `big-${at}`, namespace: NS }, addressType: group.addressType, ports: group.ports, endpoints: group.endpoints.slice(at, at + 100) })) as EndpointSlice);
    return out;
  });

const cache = new EndpointCache();
let slices = toSlices(desiredGroups(service, pods.store.byIndex('namespace', NS), () => undefined, cache));
const times: Record<'cached' | 'uncached', number[]> = { cached: [], uncached: [] };
for (let round = 0; round < ROUNDS; round++) {
  // FLIPS pods change readiness, and the informer shows it.
  const flipped = new Set<number>();
  while (flipped.size < FLIPS) flipped.add(Math.floor(Math.random() * PODS));
  await Promise.all([...flipped].map(async (i) => {
    ready[i] = !ready[i];
    await admin.patchStatus(builtin.pods, `p-${i}`, { status: { conditions: [{ type: 'Ready', status: ready[i] ? 'True' : 'False' }] } }, { namespace: NS });
  }));
  const shows = (pod: Pod): boolean => (pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True') === ready[Number(pod.metadata.name!.slice(2))];
  while (![...flipped].every((i) => shows(pods.store.get(`${NS}/p-${i}`)!))) await new Promise((resolve) => setTimeout(resolve, 10));
  let after = slices;
  for (const way of round % 2 === 0 ? (['cached', 'uncached'] as const) : (['uncached', 'cached'] as const)) {
    const start = cpu();
    const groups = desiredGroups(service, pods.store.byIndex('namespace', NS), () => undefined, way === 'cached' ? cache : new EndpointCache());
    const plan = planSlices(slices, groups[0]!.endpoints, 100);
    times[way].push(cpu() - start);
    if (plan.update.length === 0) throw new Error('no slice changed');
    if (way === 'cached') after = toSlices(groups);
  }
  slices = after;
}
await cluster.stop();
for (const way of ['uncached', 'cached'] as const) {
  const sorted = [...times[way]].sort((a, b) => a - b);
  console.log(`${way}: CPU per sync computation p50 ${quantile(sorted, 0.5).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (${PODS} pods, ${FLIPS} changed since the last sync, ${ROUNDS} rounds)`);
}
