// Service proxy rule sync (issue #31): one Service with ENDPOINTS endpoints in one EndpointSlice
// set; CHANGES times, one endpoint is replaced by another address (a pod replaced), and the proxy
// writes its delta with iptables-restore --noflush into real iptables, in a network namespace of
// its own (the host's rules are untouched). Reported: the sync time (event → rules written, as
// the proxy measures it: its rule computation, the delta and the iptables-restore run) p50/p99,
// the rules written per change, and the full sync of the first start.
//   npm run bench:proxy-sync            (ENDPOINTS=1000 CHANGES=200)
import { spawnSync } from 'node:child_process';
import type { EndpointSlice } from '../../src/api/index.js';
import { builtin, InformerFactory } from '../../src/client/index.js';
import { Iptables, startServiceProxy, type ProxySync } from '../../controllers/index.js';
import { startTestCluster } from '../../src/testing/index.js';

const ENDPOINTS = Number(process.env['ENDPOINTS'] ?? 1000);
const CHANGES = Number(process.env['CHANGES'] ?? 200);
const ns = `svcbench${process.pid}`;
const sh = (...args: string[]) => {
  const r = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
};
const ip = (i: number) => `10.${100 + Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}`;
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

sh('ip', 'netns', 'add', ns);
const cluster = await startTestCluster();
try {
  const client = cluster.client;
  await client.create(builtin.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'big', namespace: 'default' }, spec: { clusterIP: '10.0.0.50', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } }, { namespace: 'default' });
  const addresses = Array.from({ length: ENDPOINTS }, (_, i) => ip(i + 2));
  // Upstream cuts slices at 100 endpoints; the bench keeps that shape.
  const slices: EndpointSlice[] = [];
  for (let s = 0; s * 100 < ENDPOINTS; s++) {
    slices.push(
      await client.create(
        builtin.endpointSlices,
        {
          apiVersion: 'discovery.svc.io/v1',
          kind: 'EndpointSlice',
          metadata: { name: `big-${s}`, namespace: 'default', labels: { 'kubernetes.io/service-name': 'big' } },
          addressType: 'IPv4',
          ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
          endpoints: addresses.slice(s * 100, s * 100 + 100).map((a) => ({ addresses: [a], conditions: { ready: true } })),
        },
        { namespace: 'default' },
      ),
    );
  }
  const syncs: ProxySync[] = [];
  let waiting: ((sync: ProxySync) => void) | undefined;
  const informers = new InformerFactory(client);
  const proxy = startServiceProxy({
    client,
    informers,
    prefix: 'BENCH-',
    nodeName: 'n1',
    podCidr: '10.100.0.0/16',
    iptables: new Iptables(['ip', 'netns', 'exec', ns]),
    onSync: (sync) => {
      syncs.push(sync);
      waiting?.(sync);
    },
  });
  await proxy.ready;
  const full = syncs[0]!;
  const times: number[] = [];
  const computeTimes: number[] = [];
  const written: number[] = [];
  let next = ENDPOINTS + 10;
  for (let c = 0; c < CHANGES; c++) {
    const which = Math.floor(Math.random() * ENDPOINTS);
    const s = Math.floor(which / 100);
    const slice = slices[s]!;
    const endpoints = (slice.endpoints ?? []).map((e, i) => (i === which % 100 ? { ...e, addresses: [ip(next++)] } : e));
    const synced = new Promise<ProxySync>((resolve) => (waiting = resolve));
    slices[s] = await client.update(builtin.endpointSlices, { ...slice, endpoints }, { namespace: 'default' });
    const sync = await synced;
    times.push(sync.ms);
    computeTimes.push(sync.computeMs);
    written.push(sync.rules);
  }
  await proxy.stop({ cleanup: true });
  informers.stop();
  const result = {
    endpoints: ENDPOINTS,
    changes: CHANGES,
    fullSync: { ms: Math.round(full.ms), rules: full.rules },
    syncMs: { p50: +quantile(times, 0.5).toFixed(1), p99: +quantile(times, 0.99).toFixed(1), max: +Math.max(...times).toFixed(1) },
    computeMs: { p50: +quantile(computeTimes, 0.5).toFixed(1), p99: +quantile(computeTimes, 0.99).toFixed(1) },
    rulesPerChange: { min: Math.min(...written), max: Math.max(...written) },
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  await cluster.stop();
  spawnSync('ip', ['netns', 'del', ns]);
}
