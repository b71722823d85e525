// Makes the corpora svc ships that are recorded on `svc up` (bench/corpora/README.md): the whole
// control plane as a user runs it (API server on sqlite, controller manager, scheduler) driven by
// this script's workload while `svc record` (its own code, in this process) records the watches.
//   node-going-away.ndjson.gz  a Deployment spread over three nodes; one node's agent stops
//                              heartbeating: node-lifecycle marks it unreachable, taints it and
//                              evicts its pods, the ReplicaSet recreates them on the other two.
//   pod-churn.ndjson.br        10,000 pods made, run and deleted by 10 Deployments scaled up and
//                              down, on svc up's hollow nodes (CORPORA=pod-churn).
//
//   node --import tsx bench/corpora/make-up.ts [outDir]   (default bench/corpora)
//   CORPORA=pod-churn RAW_DIR=/tmp/x node --import tsx bench/corpora/make-up.ts   (keeps the raw NDJSON in /tmp/x)
//
// For node-going-away the nodes are simulated by this script (svc up runs with --disable-agent):
// each is a Node object with a Lease it renews and a Ready condition it heartbeats, and a kubelet
// part that marks the pods bound to it Running and Ready and confirms their graceful deletion.
// Stopping one is the node going away. The pod churn runs on `svc up --hollow-nodes 12` instead:
// the node agent's own code (pod workers, status, termination) on svc's simulated CRI runtime —
// its containers are simulated, and the corpus's header line says so. On the shared 2-core machine
// (load 20-27) it churned about 150 pods a minute; what ships is the first 5,000 of a 10,000 run
// (bench/corpora/README.md).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Deployment, Pod } from '../../src/api/index.js';
import { builtin, Client, Informer } from '../../src/client/index.js';
import { record } from '../../src/cli/record-command.js';
import { shipCorpus } from './ship.js';

const outDir = resolve(process.argv[2] ?? 'bench/corpora');
const REPO = resolve(import.meta.dirname, '..', '..');

const rfc3339 = (ms = Date.now()): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const micro = (ms = Date.now()): string => new Date(ms).toISOString().replace('Z', '000Z');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `svc up` on a fresh data dir, control plane only, its manager and scheduler allowed 100 requests/s
 * (the default 20/s would take half an hour over 10,000 pods; much more and the one process
 * serving the API, the manager and the scheduler stalls on a loaded machine).
 */
async function startUp(dataDir: string, hollowNodes = 0): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/svc.ts',
      'up',
      `--data-dir=${dataDir}`,
      '--secure-port=0',
      '--disable-agent',
      '--disable-dashboard',
      '--controller-manager-arg=--svc-api-qps=100',
      '--controller-manager-arg=--svc-api-burst=200',
      '--scheduler-arg=--svc-api-qps=100',
      '--scheduler-arg=--svc-api-burst=200',
      ...(hollowNodes > 0 ? [`--hollow-nodes=${hollowNodes}`] : []),
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((ready, failed) => {
    child.on('exit', (code) => failed(new Error(`svc up exited (${code}) before it was ready`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (hollowNodes > 0 && line.startsWith('hollow nodes:')) console.error(line);
      if (line.startsWith('  kubectl')) ready();
    });
  });
  return child;
}

/** What a corpus says about itself: its first line, `{"at":0,"header":{...}}` (parseRecording reads it; replays skip it). */
export interface CorpusHeader {
  readonly corpus: string;
  readonly [fact: string]: unknown;
}

/**
 * Records the watches while `drive` runs (and `tailS` seconds after), then gzips the NDJSON with
 * `header` as its first line. The raw recording is kept in RAW_DIR when that is set.
 */
async function recording(svcconfig: string, out: string, args: readonly string[], drive: () => Promise<void>, tailS: number, header?: CorpusHeader): Promise<void> {
  const rawDir = process.env['RAW_DIR'];
  const raw = rawDir === undefined ? out.replace(/\.(gz|br)$/, '') : join(rawDir, basename(out).replace(/\.(gz|br)$/, ''));
  let started!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  const stop = new AbortController();
  let elapsed = 0;
  const t0 = performance.now();
  // svc record runs for a fixed duration; long enough, then the drive's end plus the tail is awaited.
  const done = record([...args, '--svcconfig', svcconfig, '--duration', '7200s', '--out', raw], {
    out: (line) => console.log(line),
    err: (line) => (line.includes('recording') ? started() : console.error(line)),
  }, { signal: stop.signal });
  await ready;
  await drive();
  elapsed = performance.now() - t0;
  console.error(`${out}: driven in ${Math.round(elapsed)} ms; recording ${tailS} s more`);
  await sleep(tailS * 1000);
  stop.abort();
  if ((await done) !== 0) throw new Error(`svc record failed for ${out}`);
  await shipCorpus(raw, out, header === undefined ? undefined : { ...header, recordedSeconds: Math.round(elapsed / 1000) + tailS });
  console.error(`${out}: ${statSync(raw).size} bytes of NDJSON, ${statSync(out).size} gzipped`);
  if (rawDir === undefined) rmSync(raw);
}

/** A node this script plays: its Node object, Lease and status heartbeats, and its kubelet's part for pods. */
class SimulatedNode {
  #timers: NodeJS.Timeout[] = [];
  #pods: Informer<Pod> | undefined;
  #marked = new Set<string>();
  #confirming = new Set<string>();
  readonly name: string;

  constructor(
    private readonly client: Client,
    name: string,
    private readonly options: { markRunning: boolean },
  ) {
    this.name = name;
  }

  async start(): Promise<void> {
    const { client, name } = this;
    await client.create(builtin.nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'svc.dev/simulated': 'true' } },
      spec: {},
    });
    await this.heartbeat();
    await client.create(builtin.leases, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: 'kube-node-lease' },
      spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro() },
    });
    this.#timers.push(setInterval(() => void this.renew().catch((e: Error) => console.error(`${name}: lease: ${e.message}`)), 2_000));
    this.#timers.push(setInterval(() => void this.heartbeat().catch((e: Error) => console.error(`${name}: status: ${e.message}`)), 5_000));
    // Deletions whose confirmation failed (the server too busy to answer in time) are tried again.
    this.#timers.push(setInterval(() => this.#pods?.store.list().forEach((pod) => pod.metadata.deletionTimestamp !== undefined && this.confirmDeletion(pod)), 3_000));
    const pods = new Informer<Pod>(client, builtin.pods, { fieldSelector: `spec.nodeName=${name}` });
    this.#pods = pods;
    pods.events$.subscribe((event) => {
      if (event.type === 'deleted') return;
      const pod = event.object;
      const { namespace, name: podName, uid } = pod.metadata;
      if (pod.metadata.deletionTimestamp !== undefined) return this.confirmDeletion(pod);
      if (!this.options.markRunning || this.#marked.has(uid!)) return;
      this.#marked.add(uid!);
      const now = rfc3339();
      void client
        .patchStatus(builtin.pods, podName!, { status: { phase: 'Running', hostIP: '10.0.0.1', startTime: now, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }, { type: 'ContainersReady', status: 'True', lastTransitionTime: now }] } }, { namespace })
        .catch(() => this.#marked.delete(uid!));
    });
  }

  /** The kubelet's confirmation that a deleted pod's containers are gone: the delete with grace 0. */
  private confirmDeletion(pod: Pod): void {
    const { namespace, name, uid } = pod.metadata;
    if (this.#confirming.has(uid!)) return;
    this.#confirming.add(uid!);
    void this.client
      .delete(builtin.pods, name!, { namespace, gracePeriodSeconds: 0, preconditions: { uid: uid! } })
      .catch(() => {})
      .finally(() => this.#confirming.delete(uid!));
  }

  private async renew(): Promise<void> {
    await this.client.patch(builtin.leases, this.name, { spec: { renewTime: micro() } }, { namespace: 'kube-node-lease' });
  }

  private async heartbeat(): Promise<void> {
    const now = rfc3339();
    await this.client.patchStatus(builtin.nodes, this.name, {
      status: {
        capacity: { cpu: '64', memory: '256Gi', pods: '10000' },
        allocatable: { cpu: '64', memory: '256Gi', pods: '10000' },
        conditions: [
          { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'simulated node agent is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now },
          { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', lastHeartbeatTime: now, lastTransitionTime: now },
          { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', lastHeartbeatTime: now, lastTransitionTime: now },
          { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', lastHeartbeatTime: now, lastTransitionTime: now },
        ],
        addresses: [{ type: 'Hostname', address: this.name }],
        nodeInfo: { kubeletVersion: 'v1.32.0-svc-simulated', containerRuntimeVersion: 'simulated://1', operatingSystem: 'linux', architecture: 'amd64' },
      },
    });
  }

  /** The node agent stops: no more heartbeats, leases or pod handling. */
  stop(): void {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    this.#pods?.stop();
  }
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // A check that fails (the server busy past the client's timeout) is asked again.
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/**
 * A request tried again until it is answered: on the loaded machine one can time out before the
 * server accepts it (a 10,000-pod run once ended at 5,000 so, its scale-up unanswered).
 */
async function retried<T>(what: string, request: () => Promise<T>, timeoutMs = 300_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await request();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      console.error(`${what}: ${(error as Error).message}; trying again`);
      await sleep(1_000);
    }
  }
}

const deployment = (namespace: string, name: string, replicas: number, tolerationSeconds?: number): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'app', image: `registry.local/${name}:1`, resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
        // The simulated nodes only: the corpus is about them (svc up's system pods stay Pending with no node agent).
        nodeSelector: { 'svc.dev/simulated': 'true' },
        ...(tolerationSeconds === undefined
          ? {}
          : {
              tolerations: [
                { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds },
                { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds },
              ],
            }),
      },
    },
  },
});

/** The churn's hollow nodes (svc up --hollow-nodes); CHURN_NODES to change. */
const HOLLOW_NODES = Number(process.env['CHURN_NODES'] ?? 12);

/**
 * A churn Deployment at 0 replicas, its pods for the hollow nodes only. No service-account token is
 * mounted: each would be a TokenRequest and a volume written per pod, none of it read by anything
 * (the containers are simulated), and its projected volume would make every recorded pod larger.
 */
const churnDeployment = (name: string): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'churn' },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        terminationGracePeriodSeconds: 1,
        automountServiceAccountToken: false,
        containers: [{ name: 'app', image: `registry.local/${name}:1`, resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
        nodeSelector: { 'svc.io/simulated': 'true' },
      },
    },
  },
});

/** The pod churn's header: what made it, and that its containers were simulated. */
const churnHeader = (pods: number, deployments: number, peak: number, started: number): CorpusHeader => ({
  corpus: pods === 10_000 ? 'pod-churn' : `pod-churn-${pods}`,
  made: `CORPORA=pod-churn${pods === 10_000 ? '' : ` CHURN_PODS=${pods}`} node --import tsx bench/corpora/make-up.ts`,
  madeAt: new Date(started).toISOString(),
  cluster: `svc up --disable-agent --hollow-nodes ${HOLLOW_NODES} (API server on sqlite, controller manager and scheduler at --svc-api-qps 100)`,
  nodes: `${HOLLOW_NODES} hollow nodes hollow-00000..: the node agent's own code on svc's simulated CRI runtime`,
  runtime: 'SIMULATED: svc-simulated (containers simulated in memory, no process, image or network behind them; containerIDs svc-simulated://)',
  workload: `namespace churn, Deployments churn-0..churn-${deployments - 1} (0 replicas at the start, in the SYNCED lines); each in turn scaled to ${peak}, once all ${peak} are Ready back to 0: ${pods} pods created, scheduled, started, Ready, stopped and deleted`,
  resources: ['pods', 'replicasets.apps', 'deployments.apps'],
});

const podsOn = async (client: Client, namespace: string): Promise<Map<string, number>> => {
  const byNode = new Map<string, number>();
  for (const pod of (await client.list(builtin.pods, { namespace })).items) {
    if (pod.metadata.deletionTimestamp !== undefined || pod.status?.phase !== 'Running') continue;
    byNode.set(pod.spec.nodeName ?? '', (byNode.get(pod.spec.nodeName ?? '') ?? 0) + 1);
  }
  return byNode;
};

const dataDir = mkdtempSync(join(tmpdir(), 'svc-corpora-up-'));
// pod-churn only when asked: 10,000 pods on hollow nodes take a while.
const only = process.env['CORPORA'] ?? 'node-going-away';
const up = await startUp(dataDir, only.includes('pod-churn') ? HOLLOW_NODES : 0);
const svcconfig = join(dataDir, 'admin.svcconfig');
const nodes: SimulatedNode[] = [];
try {
  const client = await Client.fromSvcconfig(svcconfig, { userAgent: 'svc-corpora/workload' });
  // Where node agents keep their Leases (a node agent makes it when it registers; none runs here).
  await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-node-lease' } }).catch((error: { code?: number }) => {
    if (error.code !== 409) throw error;
  });

  if (only.includes('node-going-away')) {
    for (const name of ['sim-a', 'sim-b', 'sim-c']) {
      const node = new SimulatedNode(client, name, { markRunning: true });
      await node.start();
      nodes.push(node);
    }
    await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    await client.create(builtin.deployments, deployment('shop', 'web', 9, 5));
    await until('9 pods Running', async () => [...(await podsOn(client, 'shop')).values()].reduce((a, b) => a + b, 0) === 9, 120_000);
    await recording(
      svcconfig,
      join(outDir, 'node-going-away.ndjson.gz'),
      ['--resource', 'nodes', '--resource', 'pods', '--resource', 'replicasets.apps', '--resource', 'deployments.apps', '--namespace', 'shop'],
      async () => {
        await sleep(2_000);
        const gone = nodes.find((n) => n.name === 'sim-c')!;
        gone.stop();
        console.error(`sim-c stopped at ${new Date().toISOString()}`);
        // Its pods evicted and recreated on the other two, all Running again.
        await until(
          'the pods to run on sim-a and sim-b only',
          async () => {
            const byNode = await podsOn(client, 'shop');
            return (byNode.get('sim-a') ?? 0) + (byNode.get('sim-b') ?? 0) === 9;
          },
          180_000,
        );
      },
      5,
    );
    for (const node of nodes.splice(0)) node.stop();
  }

  if (only.includes('pod-churn')) {
    // The pods run on svc up's hollow nodes (--hollow-nodes): the node agent's own code — pod
    // workers, status writes, graceful termination — on the simulated CRI runtime. Each takes 110
    // pods (the agent's default --max-pods), so 12 hold a Deployment of 1,000 and svc up's own.
    await until(`${HOLLOW_NODES} hollow nodes Ready`, async () => (await client.list(builtin.nodes, { labelSelector: 'svc.io/simulated=true' })).items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length === HOLLOW_NODES, 300_000);
    await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'churn' } });
    // 10 Deployments, one after another: each scaled to 1,000, once all are Ready back to 0 (10,000
    // pods made, started, stopped and deleted), judged by its status (listing thousands of pods
    // each time would be a load of its own). CHURN_PODS=1000 for a smaller churn (Deployments of 500).
    const pods = Number(process.env['CHURN_PODS'] ?? 10_000);
    const PEAK = Math.min(1_000, pods / 2);
    const DEPLOYMENTS = Math.ceil(pods / PEAK);
    for (let d = 0; d < DEPLOYMENTS; d++) await client.create(builtin.deployments, churnDeployment(`churn-${d}`));
    const statusOf = async (name: string) => (await client.get(builtin.deployments, name, { namespace: 'churn' })).status;
    // 5,000 pods and more are large (about 21 KB of NDJSON a pod): brotli, not gzip (ship.ts says why).
    const out = join(outDir, `${pods === 10_000 ? 'pod-churn' : `pod-churn-${pods}`}.ndjson.${pods >= 5_000 ? 'br' : 'gz'}`);
    const started = Date.now();
    await recording(
      svcconfig,
      out,
      ['--resource', 'pods', '--resource', 'replicasets.apps', '--resource', 'deployments.apps', '--namespace', 'churn'],
      async () => {
        for (let d = 0; d < DEPLOYMENTS; d++) {
          const name = `churn-${d}`;
          await retried(`scaling ${name} to ${PEAK}`, () => client.patch(builtin.deployments, name, { spec: { replicas: PEAK } }, { namespace: 'churn' }));
          await until(`${name} Ready at ${PEAK}`, async () => (await statusOf(name))?.readyReplicas === PEAK, 1_800_000);
          console.error(`${name}: ${PEAK} Ready at ${new Date().toISOString()}`);
          await retried(`scaling ${name} to 0`, () => client.patch(builtin.deployments, name, { spec: { replicas: 0 } }, { namespace: 'churn' }));
          await until(`${name} at 0`, async () => ((await statusOf(name))?.replicas ?? 0) === 0, 1_800_000);
          console.error(`${name}: up and down at ${new Date().toISOString()}`);
        }
        await until('every pod gone', async () => (await client.list(builtin.pods, { namespace: 'churn' })).items.length === 0, 600_000);
      },
      2,
      churnHeader(pods, DEPLOYMENTS, PEAK, started),
    );
  }
} finally {
  for (const node of nodes) node.stop();
  up.kill('SIGINT');
  await new Promise((r) => up.on('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
