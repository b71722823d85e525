// What the simulated runtime holds a pod, and what a pod's CRI calls cost it (issue #26): each
// round runs NODES runtimes of PODS pods through this tree's CriClient and in-process transport
// (the calls of a hollow node's first syncs, as bench/nodeagent/simulated-cri.ts makes them: read
// the pod's runtime, RunPodSandbox, read, two ImageStatus, CreateContainer with a config as the
// agent builds one — 12 env vars, 3 mounts, labels, 64-bit resources —, StartContainer, read, a
// relist of the node), then measures the heap the runtimes hold (after a full collection, less the
// heap once they are dropped) and the CPU the round took. The runtime is this tree's or, in
// alternating rounds of the same process, the one of AB_BEFORE (a checkout of the tree before a
// change, its node_modules linked). Medians of ROUNDS per side:
//   AB_BEFORE=/tmp/svc-before node --expose-gc --import tsx bench/nodeagent/simulated-runtime-memory.ts   (NODES=20 PODS=30 ROUNDS=6)
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CriClient, InProcessTransport, SimulatedRuntime, type ContainerConfig, type Input, type PodSandboxConfig } from '../../src/nodeagent/index.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const NODES = Number(process.env['NODES'] ?? 20);
const PODS = Number(process.env['PODS'] ?? 30);
const ROUNDS = Number(process.env['ROUNDS'] ?? 6);
const IMAGE = 'registry.example/pause:1';
const before = process.env['AB_BEFORE'];

type Runtime = ConstructorParameters<typeof InProcessTransport>[0];
type RuntimeClass = new (settings: { podNetwork: string }) => Runtime;
const sides: Record<string, RuntimeClass> = { now: SimulatedRuntime };
if (before) sides['before'] = ((await import(pathToFileURL(join(before, 'src/nodeagent/simulated/index.ts')).href)) as { SimulatedRuntime: RuntimeClass }).SimulatedRuntime;

const sandboxConfig = (uid: string, name: string): Input<PodSandboxConfig> => ({
  metadata: { name, namespace: 'density', uid, attempt: 0 },
  hostname: name,
  logDirectory: `/var/log/pods/density_${name}_${uid}`,
  dnsConfig: { servers: ['10.96.0.10'], searches: ['density.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], options: ['ndots:5'] },
  portMappings: [],
  labels: { app: 'density', 'pod-template-hash': '5d8f7c9b6', 'svc.io/pod.name': name, 'svc.io/pod.namespace': 'density', 'svc.io/pod.uid': uid },
  annotations: { 'svc.io/config.source': 'api' },
  linux: { cgroupParent: '', sysctls: {}, securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' }, privileged: false, supplementalGroups: [] } },
});

const containerConfig = (uid: string, name: string): Input<ContainerConfig> => ({
  metadata: { name: 'app', attempt: 0 },
  image: { image: IMAGE, userSpecifiedImage: IMAGE },
  command: [],
  args: [],
  workingDir: '',
  envs: Array.from({ length: 12 }, (_, i) => ({ key: `KUBERNETES_SERVICE_${i}`, value: `tcp://10.96.0.${i}:443` })),
  mounts: Array.from({ length: 3 }, (_, i) => ({ containerPath: `/var/run/secrets/${i}`, hostPath: `/var/lib/svc/pods/${uid}/volumes/${i}`, readonly: true, selinuxRelabel: false, propagation: 'PROPAGATION_PRIVATE' })),
  labels: { 'svc.io/pod.name': name, 'svc.io/pod.namespace': 'density', 'svc.io/pod.uid': uid, 'svc.io/container.name': 'app' },
  annotations: { 'svc.io/container.hash': '0123456789abcdef', 'svc.io/container.restartCount': '0', 'svc.io/pod.terminationGracePeriod': '30' },
  logPath: 'app/0.log',
  linux: {
    resources: { cpuShares: 10, memoryLimitInBytes: 0, oomScoreAdj: 1000 },
    securityContext: { privileged: false, readonlyRootfs: false, capabilities: { addCapabilities: [], dropCapabilities: [] }, supplementalGroups: [], noNewPrivs: false, namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' }, maskedPaths: ['/proc/kcore'], readonlyPaths: ['/proc/sys'] },
  },
});

async function readPod(cri: CriClient, uid: string): Promise<void> {
  const filter = { labelSelector: { 'svc.io/pod.uid': uid } };
  const [{ items }, { containers }] = await Promise.all([cri.listPodSandbox({ filter }), cri.listContainers({ filter })]);
  if (items[0]) await cri.podSandboxStatus({ podSandboxId: items[0].id });
  for (const container of containers) await cri.containerStatus({ containerId: container.id });
}

async function node(Runtime: RuntimeClass, index: number): Promise<Runtime> {
  const runtime = new Runtime({ podNetwork: '10.77.0.0/24' });
  const cri = new CriClient({ endpoint: 'svc-simulated://in-process', transport: new InProcessTransport(runtime as SimulatedRuntime) });
  await cri.pullImage({ image: { image: IMAGE } });
  for (let p = 0; p < PODS; p++) {
    // Each pod's strings its own, as a node's pods' are (decoded apart).
    const uid = `5b8e2f4a-${String(index).padStart(4, '0')}-4e5f-8a9b-${String(p).padStart(12, '0')}`;
    const name = `density-${index}-6b7c9d8f5-${String(p).padStart(5, '0')}`;
    await readPod(cri, uid);
    const sandbox = sandboxConfig(uid, name);
    const { podSandboxId } = await cri.runPodSandbox({ config: sandbox });
    await readPod(cri, uid);
    const found = await cri.imageStatus({ image: { image: IMAGE } });
    await cri.imageStatus({ image: { image: found.image!.id } });
    const { containerId } = await cri.createContainer({ podSandboxId, config: containerConfig(uid, name), sandboxConfig: sandbox });
    await cri.startContainer({ containerId });
    await readPod(cri, uid);
    await Promise.all([cri.listPodSandbox(), cri.listContainers()]);
  }
  cri.close();
  return runtime;
}

async function round(Runtime: RuntimeClass): Promise<{ bytes: number; cpuUs: number }> {
  gc!();
  const cpu = process.cpuUsage();
  const held: Runtime[] = [];
  for (let n = 0; n < NODES; n++) held.push(await node(Runtime, n));
  const used = process.cpuUsage(cpu);
  gc!();
  const withPods = process.memoryUsage().heapUsed;
  held.length = 0;
  gc!();
  const without = process.memoryUsage().heapUsed;
  return { bytes: (withPods - without) / (NODES * PODS), cpuUs: (used.user + used.system) / (NODES * PODS) };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const names = Object.keys(sides);
for (const name of names) await round(sides[name]!);
const results: Record<string, { bytes: number[]; cpuUs: number[] }> = Object.fromEntries(names.map((name) => [name, { bytes: [], cpuUs: [] }]));
for (let r = 0; r < ROUNDS; r++) {
  // Alternating, and which goes first alternating too, so that a change of the machine's load hits both.
  for (const name of r % 2 === 0 ? names : [...names].reverse()) {
    const { bytes, cpuUs } = await round(sides[name]!);
    results[name]!.bytes.push(Math.round(bytes));
    results[name]!.cpuUs.push(Math.round(cpuUs));
  }
}
console.log(
  JSON.stringify({
    podsPerRound: NODES * PODS,
    heapBytesPerPod: Object.fromEntries(names.map((name) => [name, median(results[name]!.bytes)])),
    cpuUsPerPod: Object.fromEntries(names.map((name) => [name, median(results[name]!.cpuUs)])),
    rounds: results,
  }),
);
