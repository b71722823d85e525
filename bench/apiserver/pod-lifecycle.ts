// What one pod of a density run costs the API server, request kind by request kind, through HTTP
// on the server of bench:creates (sqlite, token auth): the ReplicaSet's create (a pod with its
// owner reference and template labels), the scheduler's binding, the node's status merge-patch
// (Running, its IP, its container), and the three Events a pod's start records (Scheduled,
// Pulled, Started). WATCHES cluster-wide pod watches (JSON, drained by the bench: the scheduler's
// and the manager's informers) are open through every round, so each write's fan-out is counted.
// Each phase is measured as the server's CPU per request (/proc, all its threads). With
// AB_BEFORE=<checkout> a second server from that checkout runs beside this one and every phase
// of every round runs against both, in alternating order (same-run A/B).
//   npm run bench:pod-lifecycle     (PODS=2000 ROUNDS=4 CONNECTIONS=64 WATCHES=2 NODES=100; AB_BEFORE=dir;
//                                    SERVER_FLAGS="--cpu-prof --cpu-prof-dir=DIR")
// TokenRequest and the ConfigMap read are left out: the bench's server has no service account
// signing key, and neither request writes.
import { fork } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool, request } from 'undici';
import { cpuTicks, MS_PER_TICK, residentMb } from '../support/proc.js';
import { loadavg } from 'node:os';

const PODS = Number(process.env['PODS'] ?? 2_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 4);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 64);
const WATCHES = Number(process.env['WATCHES'] ?? 2);
const NODES = Number(process.env['NODES'] ?? 100);
const here = fileURLToPath(new URL('../..', import.meta.url));
const before = process.env['AB_BEFORE'];
const PHASES = ['create', 'binding', 'status', 'events'] as const;
type Phase = (typeof PHASES)[number];

interface Server {
  readonly name: string;
  readonly pid: number;
  readonly origin: string;
  readonly pool: Pool;
  readonly headers: Record<string, string>;
  stop(): Promise<void>;
}

const children: ReturnType<typeof fork>[] = [];
// A failed run must not leave its servers behind.
process.on('exit', () => {
  for (const child of children) child.kill();
});

async function start(name: string, dir: string): Promise<Server> {
  const child = fork(`${dir}/bench/apiserver/creates-server.ts`, [], {
    cwd: dir,
    execArgv: [...(process.env['SERVER_FLAGS'] ?? '').split(' ').filter(Boolean), '--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  children.push(child);
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  const { port, token } = JSON.parse(line) as { port: number; token: string };
  const origin = `http://127.0.0.1:${port}`;
  return {
    name,
    pid: child.pid!,
    origin,
    pool: new Pool(origin, { connections: CONNECTIONS, pipelining: 1 }),
    headers: { authorization: `Bearer ${token}` },
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('stop');
      await exited;
    },
  };
}

async function send(server: Server, method: 'POST' | 'PATCH', path: string, body: unknown, contentType = 'application/json'): Promise<void> {
  const res = await server.pool.request({ method, path, headers: { ...server.headers, 'content-type': contentType }, body: JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
}

const NS = '/api/v1/namespaces/default';
const RS_UID = '5f1c2d3e-0000-4000-8000-000000000001';
const at = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const podName = (round: number, i: number) => `web-5d8f7c9b6-r${round}-${i}`;

// A pod as the ReplicaSet loop makes it from a Deployment's template.
const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    labels: { app: 'density', 'pod-template-hash': '5d8f7c9b6' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d8f7c9b6', uid: RS_UID, controller: true, blockOwnerDeletion: true }],
  },
  spec: {
    containers: [{ name: 'app', image: 'registry.example.com/app:1.0', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
    terminationGracePeriodSeconds: 30,
  },
});

// What a node agent reports for a pod it started.
function podStatus(i: number) {
  const now = at();
  const condition = (type: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now });
  const ip = `10.244.${(i >> 8) & 255}.${i & 255}`;
  return {
    status: {
      phase: 'Running',
      conditions: [condition('PodReadyToStartContainers'), condition('Initialized'), condition('Ready'), condition('ContainersReady'), condition('PodScheduled')],
      hostIP: '10.0.0.1',
      hostIPs: [{ ip: '10.0.0.1' }],
      podIP: ip,
      podIPs: [{ ip }],
      startTime: now,
      containerStatuses: [
        {
          name: 'app',
          ready: true,
          restartCount: 0,
          started: true,
          image: 'registry.example.com/app:1.0',
          imageID: 'registry.example.com/app@sha256:0000000000000000000000000000000000000000000000000000000000000000',
          containerID: `svc-simulated://${i}`,
          state: { running: { startedAt: now } },
        },
      ],
    },
  };
}

// A core Event as the recorders write one (the scheduler's, the node agent's).
const event = (name: string, reason: string, component: string, k: number) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: `${name}.${k.toString(16).padStart(16, '0')}` },
  involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name },
  reason,
  message: `${reason} ${name}`,
  source: { component },
  firstTimestamp: at(),
  lastTimestamp: at(),
  count: 1,
  type: 'Normal',
});

/** `n` requests over CONNECTIONS workers; the server's CPU µs per request and requests a second. */
async function phase(server: Server, n: number, send: (i: number) => Promise<void>): Promise<{ cpuUs: number; perSecond: number }> {
  let next = 0;
  const startTicks = cpuTicks(server.pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(CONNECTIONS, n) }, async () => {
      while (next < n) await send(next++);
    }),
  );
  // The watch frames of the last writes are part of their cost.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { cpuUs: ((cpuTicks(server.pid) - startTicks) * MS_PER_TICK * 1000) / n, perSecond: Math.round(n / ((performance.now() - started) / 1000)) };
}

const run: Record<Phase, (server: Server, round: number) => (i: number) => Promise<void>> = {
  create: (server, round) => (i) => send(server, 'POST', `${NS}/pods`, pod(podName(round, i))),
  binding: (server, round) => (i) => send(server, 'POST', `${NS}/pods/${podName(round, i)}/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: podName(round, i) }, target: { kind: 'Node', name: `node-${i % NODES}` } }),
  status: (server, round) => (i) => send(server, 'PATCH', `${NS}/pods/${podName(round, i)}/status`, podStatus(i), 'application/merge-patch+json'),
  events: (server, round) => (i) => {
    const name = podName(round, i);
    return send(server, 'POST', `${NS}/events`, event(name, ['Scheduled', 'Pulled', 'Started'][i % 3]!, i % 3 === 0 ? 'default-scheduler' : 'kubelet', i));
  },
};
// Requests per pod of each phase.
const perPod: Record<Phase, number> = { create: 1, binding: 1, status: 1, events: 3 };

const servers = before ? [await start('before', before), await start('after', here)] : [await start('this checkout', here)];
const aborts = new AbortController();
const drained: Promise<void>[] = [];
for (const server of servers) {
  // The pods' ServiceAccount (the controller manager would make it; this server runs alone).
  await send(server, 'POST', `${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  for (let w = 0; w < WATCHES; w++) {
    const res = await request(`${server.origin}/api/v1/pods?watch=1&allowWatchBookmarks=true`, { headers: server.headers, signal: aborts.signal });
    drained.push((async () => {
      try {
        for await (const _ of res.body) void _;
      } catch {
        // aborted at the end
      }
    })());
  }
}

const results = new Map(servers.map((s) => [s.name, Object.fromEntries(PHASES.map((p) => [p, [] as { cpuUs: number; perSecond: number }[]])) as Record<Phase, { cpuUs: number; perSecond: number }[]>]));
const load = () => loadavg()[0]!.toFixed(1);
for (let round = 0; round < ROUNDS; round++) {
  const loadBefore = load();
  for (const p of PHASES) {
    for (const server of round % 2 ? [...servers].reverse() : servers) results.get(server.name)![p].push(await phase(server, PODS * perPod[p], run[p](server, round)));
  }
  console.error(`round ${round} done, load ${loadBefore} → ${load()}`);
}
const memory = new Map(servers.map((server) => [server.name, residentMb(server.pid)]));
aborts.abort();
await Promise.all(drained);
for (const server of servers) {
  await server.pool.close();
  await server.stop();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`server CPU per request, ${ROUNDS} rounds of ${PODS.toLocaleString('en-US')} pods (events: 3 a pod), ${WATCHES} pod watches, ${CONNECTIONS} connections, sqlite`);
for (const [name, phases] of results) {
  let pod = 0;
  for (const p of PHASES) {
    const us = phases[p].map((r) => r.cpuUs);
    pod += median(us) * perPod[p];
    console.log(`${name}: ${p} ${us.map((v) => v.toFixed(0)).join(', ')} µs; median ${median(us).toFixed(0)}, least ${Math.min(...us).toFixed(0)} µs; ${median(phases[p].map((r) => r.perSecond)).toLocaleString('en-US')}/s median`);
  }
  const rss = memory.get(name)!;
  console.log(`${name}: a pod (medians × requests a pod) ${(pod / 1000).toFixed(2)} ms; RSS ${rss.rss} MB (peak ${rss.peak} MB)`);
}
