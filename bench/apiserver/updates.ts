// The writes a cluster makes over and over, through HTTP on the API server on sqlite (the child
// process of bench:creates): a node Lease renewal (PUT of the whole Lease as last read, a new
// renewTime and the version it was read at; 100/s at 1,000 nodes), a pod status merge-patch
// (PATCH of pods/NAME/status, what the node agent's status writer sends) and an EndpointSlice PUT
// (a slice of 100 endpoints as the endpointslice loop last wrote it, one endpoint's conditions
// flipped: what a pod readiness flip costs the slice). Rounds alternate the cases; each is
// measured as the server's CPU per request (/proc, all its threads) and requests per second. Each
// worker (one keep-alive connection) owns its own objects, as a node does, so no write conflicts.
// With AB_BEFORE=<checkout> a second server from that checkout runs beside this one and every
// round is run against both, in alternating order, so the machine's load touches both alike
// (same-run A/B).
//   npm run bench:updates     (UPDATES=10000 ROUNDS=4 OBJECTS=1000 CONNECTIONS=64; AB_BEFORE=dir;
//                              CASES=lease,status,slice (all three); SLICES=100, SLICE_UPDATES=UPDATES/4;
//                              SERVER_FLAGS="--cpu-prof --cpu-prof-dir=DIR"; AFTER_FLAGS="--max-semi-space-size=32"
//                              for the second server only, e.g. with AB_BEFORE=. to compare V8 flags)
import { fork } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { cpuTicks, MS_PER_TICK, residentMb } from '../support/proc.js';

const UPDATES = Number(process.env['UPDATES'] ?? 10_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 4);
const OBJECTS = Number(process.env['OBJECTS'] ?? 1_000);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 64);
const CASES = new Set((process.env['CASES'] ?? 'lease,status,slice').split(','));
const SLICES = Number(process.env['SLICES'] ?? 100);
const SLICE_UPDATES = Number(process.env['SLICE_UPDATES'] ?? Math.ceil(UPDATES / 4));
const ENDPOINTS_PER_SLICE = 100;
const here = fileURLToPath(new URL('../..', import.meta.url));
const before = process.env['AB_BEFORE'];

type Json = Record<string, unknown>;
interface Server {
  readonly name: string;
  readonly pid: number;
  readonly pool: Pool;
  readonly headers: Record<string, string>;
  stop(): Promise<void>;
}

const flags = (text: string | undefined) => text?.split(' ').filter(Boolean) ?? [];

async function start(name: string, dir: string, extraFlags: string[] = []): Promise<Server> {
  const child = track(fork(`${dir}/bench/apiserver/creates-server.ts`, [], {
    cwd: dir,
    execArgv: [...flags(process.env['SERVER_FLAGS']), ...extraFlags, '--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  }));
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  const { port, token } = JSON.parse(line) as { port: number; token: string };
  return {
    name,
    pid: child.pid!,
    pool: new Pool(`http://127.0.0.1:${port}`, { connections: CONNECTIONS, pipelining: 1 }),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('stop');
      await exited;
    },
  };
}
const children: ReturnType<typeof fork>[] = [];
// A failed run must not leave its servers behind.
process.on('exit', () => {
  for (const child of children) child.kill();
});
function track<T extends ReturnType<typeof fork>>(child: T): T {
  children.push(child);
  return child;
}

async function send(server: Server, method: 'POST' | 'PUT' | 'PATCH', path: string, body: unknown, contentType = 'application/json'): Promise<Json> {
  const res = await server.pool.request({ method, path, headers: { ...server.headers, 'content-type': contentType }, body: JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
  return JSON.parse(text) as Json;
}

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const PODS = '/api/v1/namespaces/default/pods';
const microTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 23)}000Z`;

const lease = (i: number) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: `node-${i}` },
  spec: { holderIdentity: `node-${i}`, leaseDurationSeconds: 40, renewTime: microTime(Date.now()) },
});

const pod = (i: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `pod-${i}`, labels: { app: 'density', 'pod-template-hash': '5d8f7c9b6' } },
  spec: { nodeName: `node-${i}`, containers: [{ name: 'app', image: 'registry.example.com/app:1.0', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
});

// What a node agent reports for a running pod; `ready` flips so every patch changes the pod.
function podStatus(i: number, ready: boolean, now: number) {
  const at = new Date(now - (now % 1000)).toISOString().replace(/\.\d+Z$/, 'Z');
  const condition = (type: string, status: boolean) => ({ type, status: status ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: at });
  return {
    status: {
      phase: 'Running',
      conditions: [condition('PodReadyToStartContainers', true), condition('Initialized', true), condition('Ready', ready), condition('ContainersReady', ready), condition('PodScheduled', true)],
      hostIP: '10.0.0.1',
      hostIPs: [{ ip: '10.0.0.1' }],
      podIP: `10.244.${(i >> 8) & 255}.${i & 255}`,
      podIPs: [{ ip: `10.244.${(i >> 8) & 255}.${i & 255}` }],
      startTime: at,
      qosClass: 'Burstable',
      containerStatuses: [
        {
          name: 'app',
          ready,
          restartCount: 0,
          started: true,
          image: 'registry.example.com/app:1.0',
          imageID: 'registry.example.com/app@sha256:0000000000000000000000000000000000000000000000000000000000000000',
          containerID: `svc-simulated://${i}`,
          state: { running: { startedAt: at } },
        },
      ],
    },
  };
}

const SLICES_PATH = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';

// A slice as the endpointslice loop writes it: 100 pods' endpoints, each with its conditions, node and pod.
const slice = (i: number) => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: {
    name: `web-${i}`,
    labels: { 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: '6b0a4f0e-0000-4000-8000-000000000001', controller: true, blockOwnerDeletion: true }],
  },
  addressType: 'IPv4',
  endpoints: Array.from({ length: ENDPOINTS_PER_SLICE }, (_, e) => {
    const pod = i * ENDPOINTS_PER_SLICE + e;
    return {
      addresses: [`10.${(pod >> 16) & 255}.${(pod >> 8) & 255}.${pod & 255}`],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: `node-${pod % 1000}`,
      targetRef: { kind: 'Pod', namespace: 'default', name: `web-${pod}`, uid: `00000000-0000-4000-8000-${String(pod).padStart(12, '0')}` },
    };
  }),
  ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
});

interface Round {
  readonly cpuUs: number;
  readonly perSecond: number;
}

/** `n` writes over CONNECTIONS workers, worker w writing objects w, w + CONNECTIONS, ...; server CPU per write. */
async function round(server: Server, n: number, objects: number, write: (object: number, k: number) => Promise<void>): Promise<Round> {
  let next = 0;
  const startTicks = cpuTicks(server.pid);
  const started = performance.now();
  const owned = (w: number) => Array.from({ length: Math.ceil((objects - w) / CONNECTIONS) }, (_, j) => w + j * CONNECTIONS);
  await Promise.all(
    Array.from({ length: Math.min(CONNECTIONS, objects) }, async (_, w) => {
      const mine = owned(w);
      for (let k = 0; next < n; k++) {
        next++;
        await write(mine[k % mine.length]!, k);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { cpuUs: ((cpuTicks(server.pid) - startTicks) * MS_PER_TICK * 1000) / n, perSecond: Math.round(n / seconds) };
}

// AFTER_FLAGS: node flags for the second server only (a V8 flag's A/B: AB_BEFORE=. AFTER_FLAGS=...).
const afterFlags = flags(process.env['AFTER_FLAGS']);
const servers = before ? [await start('before', before), await start('after', here, afterFlags)] : [await start('this checkout', here, afterFlags)];
const last = new Map<Server, Json[]>();
const lastSlices = new Map<Server, Json[]>();
for (const server of servers) {
  // The pods' ServiceAccount (the controller manager would make it; this server runs alone).
  await send(server, 'POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  const leases: Json[] = [];
  for (let i = 0; i < OBJECTS; i += CONNECTIONS) {
    const batch = Array.from({ length: Math.min(CONNECTIONS, OBJECTS - i) }, (_, j) => i + j);
    leases.push(...(await Promise.all(batch.map((k) => send(server, 'POST', LEASES, lease(k))))));
    await Promise.all(batch.map((k) => send(server, 'POST', PODS, pod(k))));
  }
  last.set(server, leases);
  const slices: Json[] = [];
  if (CASES.has('slice')) for (let i = 0; i < SLICES; i++) slices.push(await send(server, 'POST', SLICES_PATH, slice(i)));
  lastSlices.set(server, slices);
}

const leaseRenewal = (server: Server) => async (i: number) => {
  const leases = last.get(server)!;
  const current = leases[i]!;
  const spec = current['spec'] as Json;
  leases[i] = await send(server, 'PUT', `${LEASES}/node-${i}`, { ...current, spec: { ...spec, renewTime: microTime(Date.now()) } });
};
const statusPatch = (server: Server) => async (i: number, k: number) => {
  await send(server, 'PATCH', `${PODS}/pod-${i}/status`, podStatus(i, k % 2 === 0, Date.now()), 'application/merge-patch+json');
};

// One endpoint's readiness flipped, the rest as last written (the answer, managedFields and all, as the loop's informer holds it).
const sliceFlip = (server: Server) => async (i: number, k: number) => {
  const slices = lastSlices.get(server)!;
  const current = slices[i]!;
  const endpoints = [...(current['endpoints'] as Json[])];
  const at = k % endpoints.length;
  const endpoint = endpoints[at]!;
  const ready = !(endpoint['conditions'] as { ready: boolean }).ready;
  endpoints[at] = { ...endpoint, conditions: { ready, serving: ready, terminating: false } };
  slices[i] = await send(server, 'PUT', `${SLICES_PATH}/web-${i}`, { ...current, endpoints });
};

const results = new Map<string, { lease: Round[]; status: Round[]; slice: Round[] }>(servers.map((s) => [s.name, { lease: [], status: [], slice: [] }]));
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? [...servers].reverse() : servers;
  if (CASES.has('lease')) for (const server of order) results.get(server.name)!.lease.push(await round(server, UPDATES, OBJECTS, leaseRenewal(server)));
  if (CASES.has('status')) for (const server of order) results.get(server.name)!.status.push(await round(server, UPDATES, OBJECTS, statusPatch(server)));
  if (CASES.has('slice')) for (const server of order) results.get(server.name)!.slice.push(await round(server, SLICE_UPDATES, SLICES, sliceFlip(server)));
}
// Resident memory after the rounds, before the servers stop (a V8 flag or a cache shows here).
const memory = new Map(servers.map((server) => [server.name, residentMb(server.pid)]));
for (const server of servers) {
  await server.pool.close();
  await server.stop();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const show = (rounds: Round[]) =>
  rounds.length === 0 ? 'not run' : `${rounds.map((r) => r.cpuUs.toFixed(0)).join(', ')} µs; median ${median(rounds.map((r) => r.cpuUs)).toFixed(0)}, least ${Math.min(...rounds.map((r) => r.cpuUs)).toFixed(0)} µs; ${median(rounds.map((r) => r.perSecond)).toLocaleString('en-US')}/s median`;
console.log(
  `server CPU per write, ${ROUNDS} rounds of ${UPDATES.toLocaleString('en-US')} each (slices ${SLICE_UPDATES.toLocaleString('en-US')}), ${OBJECTS} Leases and ${OBJECTS} pods, ${SLICES} slices of ${ENDPOINTS_PER_SLICE} endpoints, ${CONNECTIONS} connections, sqlite`,
);
for (const [name, { lease: leaseRounds, status, slice: sliceRounds }] of results) {
  if (CASES.has('lease')) console.log(`${name}: Lease PUT ${show(leaseRounds)}`);
  if (CASES.has('status')) console.log(`${name}: pod status PATCH ${show(status)}`);
  if (CASES.has('slice')) console.log(`${name}: EndpointSlice PUT (100 endpoints) ${show(sliceRounds)}`);
  const rss = memory.get(name)!;
  console.log(`${name}: RSS ${rss.rss} MB (peak ${rss.peak} MB)`);
}
