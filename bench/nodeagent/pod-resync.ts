// What a pod's syncs cost a hollow node's process (issue #26), the agent's own work on the
// simulated runtime in process: a first sync (volumes, sandbox, image, container created and
// started, status computed) and the periodic resync of a Running pod (every --sync-frequency:
// 60 to 90 s for every pod, so at 150,000 pods ~2,000 a second in the fleet; the figure that grows
// with the pods already there). NODES runtimes of PODS pods as a density run's Deployment makes
// them (one container, the API-access projected volume, defaulted, decoded and frozen as the
// node's informer holds them), through `syncPod` with a hollow node's volumes (made, not
// written; objects from memory), its probe manager and a status writer that compares as the
// agent's does (the tree's `statusFingerprint` against the last one written) but writes nothing
// (no API server).
// With AB_BEFORE=<checkout of the tree before the change, its node_modules linked> the same runs
// on that tree's modules beside this one's, in alternating rounds of one process; CPU µs a sync
// (process.cpuUsage), medians of ROUNDS:
//   AB_BEFORE=/tmp/svc-before node --expose-gc --import tsx bench/nodeagent/pod-resync.ts   (NODES=20 PODS=30 ROUNDS=8 RESYNCS=5)
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { decodeProtobuf, encodeProtobuf, type JsonObject } from '../../src/encoding/index.js';
import { deepFreeze } from '../../src/client/index.js';
import type { Pod } from '../../src/api/index.js';
import { densityPodSpec } from '../support/density-pod-spec.js';

const NODES = Number(process.env['NODES'] ?? 20);
const PODS = Number(process.env['PODS'] ?? 30);
const ROUNDS = Number(process.env['ROUNDS'] ?? 8);
const RESYNCS = Number(process.env['RESYNCS'] ?? 5);
const BEFORE = process.env['AB_BEFORE'];
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

type Agent = typeof import('../../src/nodeagent/index.js');
type Sync = typeof import('../../src/nodeagent/pods/sync-pod.js');
type Context = import('../../src/nodeagent/pods/worker-context.js').WorkerContext;
type Entry = import('../../src/nodeagent/pods/worker-context.js').PodEntry;

/** One tree's modules. */
interface Tree {
  readonly name: string;
  readonly agent: Agent;
  readonly sync: Sync;
}

async function tree(name: string, root: string | undefined): Promise<Tree> {
  const at = (path: string) => (root ? pathToFileURL(join(root, path)).href : new URL(`../../${path}`, import.meta.url).href);
  return { name, agent: (await import(at('src/nodeagent/index.ts'))) as Agent, sync: (await import(at('src/nodeagent/pods/sync-pod.ts'))) as Sync };
}

const now = Math.floor(Date.now() / 1000);
const claims = Buffer.from(JSON.stringify({ iat: now, exp: now + 3607, aud: ['https://svc.default.svc'] })).toString('base64url');
const token = `eyJhbGciOiJSUzI1NiJ9.${claims}.${'s'.repeat(342)}`;
const objects = {
  configMap: async (namespace: string, name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { 'ca.crt': `-----BEGIN CERTIFICATE-----\n${'A'.repeat(1100)}\n-----END CERTIFICATE-----\n` } }) as never,
  secret: async () => undefined,
  serviceAccountToken: async () => ({ token, expirationTimestamp: new Date((now + 3607) * 1000).toISOString() }),
  services: async () => [],
};

/** Pod `p` of node `n` as the node's informer holds it: bound, defaulted, decoded from protobuf and frozen. */
function pod(n: number, p: number): Pod {
  const i = n * PODS + p;
  const time = new Date(Date.UTC(2026, 10, 28, 9) + i * 20).toISOString().replace(/\.\d+Z$/, 'Z');
  const name = `density-${i % 50}-6b7c9d8f5-${String(i).padStart(5, '0')}`;
  const volume = `kube-api-access-${String(i).padStart(5, '0')}`;
  const object: JsonObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: `density-${i % 50}-6b7c9d8f5-`,
      namespace: 'density',
      uid: `5b8e2f4a-1c3d-4e5f-8a9b-${String(i).padStart(12, '0')}`,
      resourceVersion: String(100_000 + i),
      creationTimestamp: time,
      labels: { app: `density-${i % 50}`, 'pod-template-hash': '6b7c9d8f5' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `density-${i % 50}-6b7c9d8f5`, uid: `0d1e2f3a-4b5c-6d7e-8f9a-${String(i % 50).padStart(12, '0')}`, controller: true, blockOwnerDeletion: true }],
    },
    spec: densityPodSpec(volume, `hollow-${String(n).padStart(5, '0')}`),
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: time }], qosClass: 'Burstable' },
  };
  return deepFreeze(decodeProtobuf(encodeProtobuf(object))) as unknown as Pod;
}

/** The agent's StatusWriter.write without the API server: the tree's fingerprint compared with the last one "written". */
function statusWriter(tree: Tree): { readonly writes: () => number; write(pod: Pod, status: unknown): Promise<boolean> } {
  const written = new Map<string, string>();
  let writes = 0;
  return {
    writes: () => writes,
    write: async (pod, status) => {
      const uid = pod.metadata.uid ?? '';
      const fingerprint = tree.agent.statusFingerprint(status as never);
      if (written.get(uid) === fingerprint) return false;
      written.set(uid, fingerprint);
      writes++;
      return true;
    },
  };
}

/** A hollow node's sync context on a simulated runtime of its own, built from one tree's modules. */
function context(tree: Tree, n: number, writer: ReturnType<typeof statusWriter>): Context {
  const { agent } = tree;
  const runtime = new agent.SimulatedRuntime({ podNetwork: `10.${64 + Math.floor(n / 256)}.${n % 256}.0/24` });
  const cri = new agent.CriClient({ endpoint: 'svc-simulated://in-process', transport: new agent.InProcessTransport(runtime), timeoutMs: 120_000 });
  const rootDir = `/var/lib/svc-bench/hollow-${n}`;
  return {
    cri,
    signal: new AbortController().signal,
    sandbox: { podLogsDir: join(rootDir, 'pod-logs'), clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', resolvConf: '', cgroupParent: undefined },
    container: { nodeMemoryBytes: 16 * 2 ** 30 },
    hostIPs: [`10.250.${Math.floor(n / 256)}.${n % 256}`],
    runtimeName: 'svc-simulated',
    backoff: new agent.CrashLoopBackoff(),
    exited: new Map(),
    statusWriter: writer,
    volumes: agent.podVolumesAccess({ rootDir, nodeName: `hollow-${n}`, hostIP: '10.250.0.1', objects, nodeAllocatable: { cpu: '4', memory: '16Gi', pods: '110' }, memoryBacked: false, rememberWrites: true, writeFiles: false }),
    images: undefined,
    probes: new agent.ProbeManager({ cri, runAction: async () => ({ result: 'success', message: '' }) }),
    events: undefined,
    resources: undefined,
  } as unknown as Context;
}

/** One tree's nodes and pods, each pod's entry as the workers keep it. */
interface Fleet {
  readonly tree: Tree;
  readonly nodes: { readonly context: Context; readonly entries: Entry[] }[];
  readonly writer: ReturnType<typeof statusWriter>;
}

/** Syncs every pod once: CPU µs a pod, and how many statuses were written. */
async function syncAll(fleet: Fleet): Promise<{ us: number; writes: number }> {
  const writesBefore = fleet.writer.writes();
  const before = process.cpuUsage();
  for (const { context, entries } of fleet.nodes) for (const entry of entries) await fleet.tree.sync.syncPod(context, entry);
  const used = process.cpuUsage(before);
  return { us: (used.user + used.system) / (NODES * PODS), writes: fleet.writer.writes() - writesBefore };
}

async function fleetOf(tree: Tree): Promise<{ fleet: Fleet; firstSyncUs: number }> {
  const writer = statusWriter(tree);
  const fleet: Fleet = { tree, nodes: [], writer };
  for (let n = 0; n < NODES; n++) {
    const entries = Array.from({ length: PODS }, (_, p): Entry => ({ pod: pod(n, p), state: 'syncing', removed: false, status: undefined, apiStatus: undefined, failures: 0 }));
    fleet.nodes.push({ context: context(tree, n, writer), entries });
  }
  gc!();
  const firstSyncUs = (await syncAll(fleet)).us;
  for (const { entries } of fleet.nodes) for (const entry of entries) if (entry.status?.phase !== 'Running') throw new Error(`${tree.name}: a pod is ${entry.status?.phase} after its first sync`);
  return { fleet, firstSyncUs };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const trees = [await tree('now', undefined), ...(BEFORE ? [await tree('before', BEFORE)] : [])];
const results = new Map(trees.map((t) => [t.name, { firstSync: [] as number[], resync: [] as number[], statusWritesAtResync: 0 }]));
for (let round = 0; round < ROUNDS; round++) {
  // Alternating which tree goes first, so a change of the machine's load falls on both.
  for (const t of round % 2 === 0 ? trees : [...trees].reverse()) {
    const { fleet, firstSyncUs } = await fleetOf(t);
    const resyncs: number[] = [];
    for (let r = 0; r < RESYNCS; r++) {
      gc!();
      const { us, writes } = await syncAll(fleet);
      resyncs.push(us);
      // A resync of a Running pod whose runtime did not change writes no status.
      results.get(t.name)!.statusWritesAtResync += writes;
    }
    results.get(t.name)!.firstSync.push(firstSyncUs);
    results.get(t.name)!.resync.push(median(resyncs));
    for (const { context } of fleet.nodes) context.probes?.close();
  }
}
const round1 = (v: number) => Math.round(v * 10) / 10;
console.log(
  JSON.stringify({
    podsPerRound: NODES * PODS,
    rounds: ROUNDS,
    resyncsPerRound: RESYNCS,
    cpuUsPerPod: Object.fromEntries([...results].map(([name, r]) => [name, { firstSync: round1(median(r.firstSync)), resync: round1(median(r.resync)), statusWritesAtResync: r.statusWritesAtResync }])),
    roundsUs: Object.fromEntries([...results].map(([name, r]) => [name, { firstSync: r.firstSync.map(Math.round), resync: r.resync.map(Math.round) }])),
  }),
);
