// What a pod's CRI calls cost a hollow node's process (issue #26): the simulated runtime in
// process, through the agent's CriClient and the in-process transport, requests handed over as
// built (hollow nodes' default) or shaped through the proto first (`--shape-cri-requests`), in
// alternating rounds of one process. Each round is NODES runtimes of PODS pods; a pod is the
// calls a hollow node's first syncs make (read the pod's runtime, RunPodSandbox, read again, two
// ImageStatus, CreateContainer with a container config as the agent builds one — 12 env vars, 3
// mounts, labels, 64-bit resources —, StartContainer, read again) and one relist of its node.
// CPU µs a pod (process.cpuUsage), the median of ROUNDS per mode:
//   node --import tsx bench/nodeagent/simulated-cri.ts   (NODES=20 PODS=30 ROUNDS=8)
import { CriClient, InProcessTransport, SimulatedRuntime, type ContainerConfig, type Input, type PodSandboxConfig } from '../../src/nodeagent/index.js';

const NODES = Number(process.env['NODES'] ?? 20);
const PODS = Number(process.env['PODS'] ?? 30);
const ROUNDS = Number(process.env['ROUNDS'] ?? 8);
const IMAGE = 'registry.example/pause:1';

const sandboxConfig = (uid: string, name: string): Input<PodSandboxConfig> => ({
  metadata: { name, namespace: 'density', uid, attempt: 0 },
  hostname: name,
  logDirectory: `/var/log/pods/density_${name}_${uid}`,
  dnsConfig: { servers: [], searches: [], options: [] },
  portMappings: [],
  labels: { app: 'density', 'pod-template-hash': '5d8f7c9b6', 'io.kubernetes.pod.name': name, 'io.kubernetes.pod.namespace': 'density', 'io.kubernetes.pod.uid': uid },
  annotations: { 'kubernetes.io/config.source': 'api' },
  linux: { cgroupParent: '', sysctls: {}, securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' }, privileged: false, supplementalGroups: [] } },
});

const containerConfig = (uid: string, name: string): Input<ContainerConfig> => ({
  metadata: { name: 'app', attempt: 0 },
  image: { image: IMAGE },
  command: [],
  args: [],
  workingDir: '',
  envs: Array.from({ length: 12 }, (_, i) => ({ key: `KUBERNETES_SERVICE_${i}`, value: `10.96.0.${i}` })),
  mounts: Array.from({ length: 3 }, (_, i) => ({ containerPath: `/var/run/secrets/${i}`, hostPath: `/var/lib/svc/pods/${uid}/volumes/${i}`, readonly: true, selinuxRelabel: false, propagation: 'PROPAGATION_PRIVATE' })),
  labels: { 'io.kubernetes.pod.name': name, 'io.kubernetes.pod.namespace': 'density', 'io.kubernetes.pod.uid': uid, 'io.kubernetes.container.name': 'app' },
  annotations: { 'io.kubernetes.container.hash': '0123456789abcdef', 'io.kubernetes.container.restartCount': '0' },
  logPath: 'app/0.log',
  linux: { resources: { cpuPeriod: 100000n, cpuQuota: 0n, cpuShares: 2n, memoryLimitInBytes: 0n, oomScoreAdj: 1000n }, securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } } },
});

async function readPod(cri: CriClient, uid: string): Promise<void> {
  const filter = { labelSelector: { 'io.kubernetes.pod.uid': uid } };
  const [{ items }, { containers }] = await Promise.all([cri.listPodSandbox({ filter }), cri.listContainers({ filter })]);
  if (items[0]) await cri.podSandboxStatus({ podSandboxId: items[0].id });
  for (const container of containers) await cri.containerStatus({ containerId: container.id });
}

async function node(shapeRequests: boolean, index: number): Promise<void> {
  const runtime = new SimulatedRuntime({ podNetwork: '10.77.0.0/24' });
  const cri = new CriClient({ endpoint: 'svc-simulated://in-process', transport: new InProcessTransport(runtime, { shapeRequests }) });
  await cri.pullImage({ image: { image: IMAGE } });
  for (let p = 0; p < PODS; p++) {
    const uid = `${index}-${p}-0000-0000-000000000000`;
    const name = `density-${index}-${p}`;
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
}

async function round(shapeRequests: boolean): Promise<number> {
  const before = process.cpuUsage();
  for (let n = 0; n < NODES; n++) await node(shapeRequests, n);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / (NODES * PODS);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
await round(false);
await round(true);
const shaped: number[] = [];
const unshaped: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  // Alternating, and which goes first alternating too, so that a change of the machine's load hits both.
  if (r % 2 === 0) {
    shaped.push(await round(true));
    unshaped.push(await round(false));
  } else {
    unshaped.push(await round(false));
    shaped.push(await round(true));
  }
}
console.log(
  JSON.stringify({
    podsPerRound: NODES * PODS,
    cpuUsPerPod: { shapedRequests: Number(median(shaped).toFixed(1)), unshapedRequests: Number(median(unshaped).toFixed(1)) },
    rounds: { shapedRequests: shaped.map((v) => Math.round(v)), unshapedRequests: unshaped.map((v) => Math.round(v)) },
  }),
);
