// svc's simulated CRI runtime (issue #26): served over gRPC on a unix socket, the node agent's
// CriClient drives a pod's whole life through it as through containerd; the in-process transport
// gives answers of the same shape as the socket's, and hands requests over unshaped, which the
// runtime reads with the CRI's defaults as it reads the socket's decoded ones; the settings' rates
// and bad settings.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError } from '../../../src/api/index.js';
import { CriClient, GrpcStatus, InProcessTransport, isCriError, serveSimulatedRuntime, SimulatedRuntime, type SimulatedRuntimeServer } from '../../../src/nodeagent/index.js';
import { messageType, shapeMessage } from '../../../src/nodeagent/cri/index.js';

let dir: string;
let runtime: SimulatedRuntime;
let server: SimulatedRuntimeServer;
let overSocket: CriClient;
let inProcess: CriClient;
let inProcessShaped: CriClient;

const sandboxConfig = (uid: string) => ({
  metadata: { name: `pod-${uid}`, uid, namespace: 'default', attempt: 0 },
  hostname: `pod-${uid}`,
  logDirectory: `/var/log/pods/${uid}`,
  labels: { 'svc.io/pod.uid': uid },
  annotations: { note: 'simulated' },
});
const containerConfig = (uid: string) => ({ metadata: { name: 'app', attempt: 0 }, image: { image: 'registry.example/app:1' }, labels: { 'svc.io/pod.uid': uid, 'svc.io/container.name': 'app' }, logPath: 'app/0.log' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-simulated-runtime-'));
  runtime = new SimulatedRuntime({ podNetwork: '10.77.0.0/24' });
  server = await serveSimulatedRuntime(runtime, join(dir, 'cri.sock'));
  overSocket = new CriClient({ endpoint: server.endpoint, timeoutMs: 10_000 });
  inProcess = new CriClient({ endpoint: 'svc-simulated://in-process', transport: new InProcessTransport(runtime) });
  inProcessShaped = new CriClient({ endpoint: 'svc-simulated://in-process', transport: new InProcessTransport(runtime, { shapeRequests: true }) });
});

afterAll(async () => {
  overSocket?.close();
  inProcess?.close();
  inProcessShaped?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the simulated runtime over its unix socket', () => {
  it('names itself svc-simulated and is ready', async () => {
    const version = await overSocket.version();
    expect(version.runtimeName).toBe('svc-simulated');
    expect(version.runtimeApiVersion).toBe('v1');
    const status = await overSocket.status();
    expect(status.status?.conditions.map((c) => [c.type, c.status])).toEqual([
      ['RuntimeReady', true],
      ['NetworkReady', true],
    ]);
  });

  it("runs a pod's sandbox and container from creation to removal", async () => {
    const { podSandboxId } = await overSocket.runPodSandbox({ config: sandboxConfig('u1') });
    const sandbox = await overSocket.podSandboxStatus({ podSandboxId });
    expect(sandbox.status?.state).toBe('SANDBOX_READY');
    expect(sandbox.status?.network?.ip).toMatch(/^10\.77\.0\.\d+$/);
    expect(sandbox.status?.annotations).toEqual({ note: 'simulated' });
    expect(typeof sandbox.status?.createdAt).toBe('bigint');

    const pulled = await overSocket.pullImage({ image: { image: 'registry.example/app:1' } });
    expect(pulled.imageRef).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await overSocket.imageStatus({ image: { image: 'registry.example/app:1' } })).image?.id).toBe(pulled.imageRef);
    expect((await overSocket.imageStatus({ image: { image: 'registry.example/other:1' } })).image).toBeNull();

    const { containerId } = await overSocket.createContainer({ podSandboxId, config: containerConfig('u1'), sandboxConfig: sandboxConfig('u1') });
    expect((await overSocket.containerStatus({ containerId })).status?.state).toBe('CONTAINER_CREATED');
    await overSocket.startContainer({ containerId });
    const running = (await overSocket.containerStatus({ containerId })).status!;
    expect(running.state).toBe('CONTAINER_RUNNING');
    expect(running.imageRef).toBe(pulled.imageRef);
    expect(running.logPath).toBe('/var/log/pods/u1/app/0.log');
    expect(running.startedAt > 0n).toBe(true);

    const byLabel = await overSocket.listContainers({ filter: { labelSelector: { 'svc.io/pod.uid': 'u1' } } });
    expect(byLabel.containers.map((c) => c.id)).toEqual([containerId]);
    expect((await overSocket.listContainers({ filter: { labelSelector: { 'svc.io/pod.uid': 'nobody' } } })).containers).toEqual([]);
    expect((await overSocket.listPodSandbox({ filter: { state: { state: 'SANDBOX_READY' } } })).items.map((s) => s.id)).toContain(podSandboxId);

    expect((await overSocket.execSync({ containerId, cmd: ['true'], timeout: 1 })).exitCode).toBe(0);

    await overSocket.stopContainer({ containerId, timeout: 30 });
    const stopped = (await overSocket.containerStatus({ containerId })).status!;
    expect(stopped.state).toBe('CONTAINER_EXITED');
    expect(stopped.exitCode).toBe(0);
    await overSocket.stopPodSandbox({ podSandboxId });
    await overSocket.stopPodSandbox({ podSandboxId }); // idempotent
    expect((await overSocket.podSandboxStatus({ podSandboxId })).status?.state).toBe('SANDBOX_NOTREADY');
    await overSocket.removeContainer({ containerId });
    await overSocket.removePodSandbox({ podSandboxId });
    await overSocket.removePodSandbox({ podSandboxId }); // idempotent
    const gone = await overSocket.podSandboxStatus({ podSandboxId }).catch((error: unknown) => error);
    expect(isCriError(gone, GrpcStatus.NOT_FOUND)).toBe(true);
  });

  it('answers the streaming calls UNIMPLEMENTED, and an unknown container NOT_FOUND', async () => {
    const exec = await overSocket.exec({ containerId: 'x', cmd: ['sh'] }).catch((error: unknown) => error);
    expect(isCriError(exec, GrpcStatus.UNIMPLEMENTED)).toBe(true);
    const status = await overSocket.containerStatus({ containerId: 'missing' }).catch((error: unknown) => error);
    expect(isCriError(status, GrpcStatus.NOT_FOUND)).toBe(true);
  });

  it('answers in process exactly what it answers over the socket', async () => {
    const { podSandboxId } = await inProcess.runPodSandbox({ config: sandboxConfig('u2') });
    const { containerId } = await inProcess.createContainer({ podSandboxId, config: containerConfig('u2'), sandboxConfig: sandboxConfig('u2') });
    await inProcess.startContainer({ containerId });
    expect(await inProcess.containerStatus({ containerId })).toEqual(await overSocket.containerStatus({ containerId }));
    expect(await inProcess.podSandboxStatus({ podSandboxId }).then((r) => r.status)).toEqual(await overSocket.podSandboxStatus({ podSandboxId }).then((r) => r.status));
    expect(await inProcess.listContainers({ filter: { podSandboxId } })).toEqual(await overSocket.listContainers({ filter: { podSandboxId } }));
  });
});

/**
 * A pod's life with every request as sparse as the CRI's types let the agent build it (fields,
 * maps and enums left out, a selector's key with no value), and what each answer said: ids,
 * times and addresses replaced by what they are, so that two runs compare.
 */
async function sparseLife(cri: CriClient, uid: string): Promise<unknown[]> {
  const seen: unknown[] = [];
  const { podSandboxId } = await cri.runPodSandbox({ config: { metadata: { name: `sparse-${uid}`, uid } } });
  const sandbox = (await cri.podSandboxStatus({ podSandboxId })).status!;
  expect(sandbox.network?.ip).toMatch(/^10\.77\.0\.\d+$/);
  seen.push({ ...sandbox, id: 'sandbox', createdAt: 'created', network: 'an address', metadata: { ...sandbox.metadata, uid: 'uid', name: 'name' } });
  const sandboxIds = async (filter: Parameters<CriClient['listPodSandbox']>[0]): Promise<string[]> => (await cri.listPodSandbox(filter)).items.map((s) => (s.id === podSandboxId ? 'sandbox' : s.id));
  // An unset state is the enum's first value (SANDBOX_READY); a selector's key with no value is not on the wire.
  seen.push(await sandboxIds({ filter: { id: podSandboxId, state: {} } }));
  seen.push(await sandboxIds({ filter: { id: podSandboxId, labelSelector: { 'svc.io/pod.uid': undefined } } }));
  seen.push(await sandboxIds({ filter: { id: podSandboxId, labelSelector: { 'svc.io/pod.uid': uid } } }));

  const { containerId } = await cri.createContainer({ podSandboxId, config: { metadata: { name: 'app' }, image: { image: 'registry.example/sparse:1' } } });
  const containerIds = async (filter: Parameters<CriClient['listContainers']>[0]): Promise<string[]> => (await cri.listContainers(filter)).containers.map((c) => (c.id === containerId ? 'container' : c.id));
  const created = (await cri.containerStatus({ containerId })).status!;
  seen.push({ ...created, id: 'container', createdAt: 'created' });
  // An unset state is CONTAINER_CREATED: the container is listed before its start and not after.
  seen.push(await containerIds({ filter: { podSandboxId, state: {} } }));
  await cri.startContainer({ containerId });
  seen.push(await containerIds({ filter: { podSandboxId, state: {} } }));
  seen.push(await containerIds({ filter: { podSandboxId, state: { state: 'CONTAINER_RUNNING' }, labelSelector: { 'svc.io/container.name': undefined } } }));
  seen.push(await containerIds({ filter: { podSandboxId, labelSelector: { 'svc.io/container.name': 'app' } } }));
  await cri.stopContainer({ containerId });
  await cri.stopPodSandbox({ podSandboxId });
  seen.push(await sandboxIds({ filter: { id: podSandboxId, state: {} } }));
  seen.push(await containerIds({ filter: { podSandboxId, state: { state: 'CONTAINER_EXITED' } } }));
  await cri.removePodSandbox({ podSandboxId });
  return seen;
}

describe('requests as the agent builds them', () => {
  it("are read with the CRI's defaults in process, unshaped, as the socket's decoded ones are", async () => {
    const overTheWire = await sparseLife(overSocket, 's1');
    expect(overTheWire).toEqual([
      expect.objectContaining({ state: 'SANDBOX_READY', labels: {}, annotations: {}, runtimeHandler: '', linux: { namespaces: { options: { network: 'POD', pid: 'POD', ipc: 'POD', targetId: '', usernsOptions: null } } } }),
      ['sandbox'],
      ['sandbox'],
      [],
      expect.objectContaining({ state: 'CONTAINER_CREATED', labels: {}, annotations: {}, logPath: '', mounts: [], resources: null, exitCode: 0, startedAt: 0n }),
      ['container'],
      [],
      ['container'],
      [],
      [],
      ['container'],
    ]);
    expect(await sparseLife(inProcess, 's2')).toEqual(overTheWire);
    expect(await sparseLife(inProcessShaped, 's3')).toEqual(overTheWire);
  });

  it('shape the Status answer once and share it', async () => {
    expect(await inProcess.status()).toBe(await inProcess.status());
    expect(await inProcess.status()).toEqual(await overSocket.status());
  });
});

/** A sandbox and a container config with every part the agent fills in, most of which no answer carries. */
const fullSandboxConfig = (uid: string) => ({
  ...sandboxConfig(uid),
  dnsConfig: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local', 'svc.cluster.local'], options: ['ndots:5'] },
  portMappings: [{ protocol: 'TCP' as const, containerPort: 8080, hostPort: 18080, hostIp: '' }],
  linux: { cgroupParent: '/kubepods/pod' + uid, sysctls: { 'net.ipv4.ip_forward': '1' }, securityContext: { namespaceOptions: { network: 'POD' as const, pid: 'CONTAINER' as const, ipc: 'POD' as const }, privileged: false, supplementalGroups: [1000] } },
});
const fullContainerConfig = (uid: string) => ({
  ...containerConfig(uid),
  command: ['/app'],
  args: ['--serve'],
  envs: [{ key: 'KUBERNETES_SERVICE_HOST', value: '10.96.0.1' }],
  mounts: [{ containerPath: '/var/run/secrets/kubernetes.io/serviceaccount', hostPath: `/var/lib/svc/pods/${uid}/volumes/token`, readonly: true }],
  annotations: { 'svc.io/container.hash': '0123456789abcdef' },
  linux: { resources: { cpuShares: 10, memoryLimitInBytes: 16_777_216, oomScoreAdj: 1000 }, securityContext: { privileged: false, maskedPaths: ['/proc/kcore'], readonlyPaths: ['/proc/sys'], capabilities: { addCapabilities: [], dropCapabilities: ['NET_RAW'] } } },
});

describe('what the runtime keeps of a request', () => {
  it('answers what the request said at its call: the config changed afterwards changes no answer', async () => {
    const sandboxRequest = fullSandboxConfig('k1');
    const containerRequest = fullContainerConfig('k1');
    const { podSandboxId } = await inProcess.runPodSandbox({ config: sandboxRequest });
    const { containerId } = await inProcess.createContainer({ podSandboxId, config: containerRequest, sandboxConfig: sandboxRequest });
    // The agent builds every request afresh; were the runtime to keep the request and shape its
    // answers from it later, a change like this would show in the answers after the start.
    sandboxRequest.labels['svc.io/pod.uid'] = 'changed';
    sandboxRequest.metadata.name = 'changed';
    containerRequest.labels['svc.io/pod.uid'] = 'changed';
    containerRequest.mounts[0]!.containerPath = '/changed';
    containerRequest.linux.resources.cpuShares = 999;
    containerRequest.metadata.name = 'changed';
    await inProcess.startContainer({ containerId });
    await inProcess.stopPodSandbox({ podSandboxId });
    const status = (await inProcess.containerStatus({ containerId })).status!;
    expect(status.state).toBe('CONTAINER_EXITED');
    expect(status.metadata?.name).toBe('app');
    expect(status.labels).toEqual({ 'svc.io/pod.uid': 'k1', 'svc.io/container.name': 'app' });
    expect(status.mounts.map((m) => m.containerPath)).toEqual(['/var/run/secrets/kubernetes.io/serviceaccount']);
    expect(status.resources?.linux?.cpuShares).toBe(10n);
    const sandbox = (await inProcess.podSandboxStatus({ podSandboxId })).status!;
    expect([sandbox.state, sandbox.metadata?.name, sandbox.labels]).toEqual(['SANDBOX_NOTREADY', 'pod-k1', { 'svc.io/pod.uid': 'k1' }]);
    expect((await inProcess.listPodSandbox({ filter: { labelSelector: { 'svc.io/pod.uid': 'k1' } } })).items.map((s) => s.id)).toEqual([podSandboxId]);
    expect((await inProcess.listContainers({ filter: { labelSelector: { 'svc.io/pod.uid': 'changed' } } })).containers).toEqual([]);
  });

  it("answers each read with the shapes of the request's fields a CRI answer carries, and changes none it handed out", async () => {
    const sandboxRequest = fullSandboxConfig('k2');
    const containerRequest = fullContainerConfig('k2');
    const { podSandboxId } = await inProcess.runPodSandbox({ config: sandboxRequest });
    const { containerId } = await inProcess.createContainer({ podSandboxId, config: containerRequest, sandboxConfig: sandboxRequest });
    const created = (await inProcess.containerStatus({ containerId })).status!;
    await inProcess.startContainer({ containerId });
    const running = (await inProcess.containerStatus({ containerId })).status!;
    const listed = (await inProcess.listContainers({ filter: { id: containerId } })).containers[0]!;
    const sandbox = (await inProcess.podSandboxStatus({ podSandboxId })).status!;
    const sandboxListed = (await inProcess.listPodSandbox({ filter: { id: podSandboxId } })).items[0]!;
    // What shaping the request's own fields through the proto gives (how the answers were made
    // from the kept request before): the same, field for field.
    const common = { id: containerId, metadata: containerRequest.metadata, image: containerRequest.image, imageRef: running.imageRef, state: 'CONTAINER_RUNNING', createdAt: running.createdAt, labels: containerRequest.labels, annotations: containerRequest.annotations };
    expect(running).toEqual(
      shapeMessage(messageType('ContainerStatus'), { ...common, startedAt: running.startedAt, finishedAt: 0n, exitCode: 0, reason: '', message: '', mounts: containerRequest.mounts, logPath: '/var/log/pods/k2/app/0.log', resources: { linux: containerRequest.linux.resources } }),
    );
    expect(listed).toEqual(shapeMessage(messageType('Container'), { ...common, podSandboxId }));
    const sandboxCommon = { id: podSandboxId, metadata: sandboxRequest.metadata, state: 'SANDBOX_READY', createdAt: sandbox.createdAt, labels: sandboxRequest.labels, annotations: sandboxRequest.annotations, runtimeHandler: '' };
    expect(sandbox).toEqual(shapeMessage(messageType('PodSandboxStatus'), { ...sandboxCommon, network: { ip: sandbox.network!.ip, additionalIps: [] }, linux: { namespaces: { options: sandboxRequest.linux.securityContext.namespaceOptions } } }));
    expect(sandboxListed).toEqual(shapeMessage(messageType('PodSandbox'), sandboxCommon));
    // An answer handed out is the agent's to hold: a later change makes new ones.
    expect(created.state).toBe('CONTAINER_CREATED');
    expect(created.startedAt).toBe(0n);
    await inProcess.stopContainer({ containerId });
    expect(running.state).toBe('CONTAINER_RUNNING');
    expect(listed.state).toBe('CONTAINER_RUNNING');
    expect((await inProcess.listContainers({ filter: { id: containerId } })).containers[0]!.state).toBe('CONTAINER_EXITED');
  });
});

describe('the simulation settings', () => {
  it('fail every start and every exec probe at rate 1', async () => {
    const failing = new SimulatedRuntime({ startFailureRate: 1, probeFailureRate: 1 });
    const cri = new CriClient({ endpoint: 'svc-simulated://in-process', transport: new InProcessTransport(failing) });
    const { podSandboxId } = await cri.runPodSandbox({ config: sandboxConfig('u3') });
    const { containerId } = await cri.createContainer({ podSandboxId, config: containerConfig('u3') });
    const start = await cri.startContainer({ containerId }).catch((error: unknown) => error);
    expect(isCriError(start, GrpcStatus.UNKNOWN)).toBe(true);
    const status = (await cri.containerStatus({ containerId })).status!;
    expect([status.state, status.exitCode, status.reason]).toEqual(['CONTAINER_EXITED', 128, 'StartError']);
    const { containerId: second } = await cri.createContainer({ podSandboxId, config: { ...containerConfig('u3'), metadata: { name: 'app', attempt: 1 } } });
    expect(isCriError(await cri.startContainer({ containerId: second }).catch((e: unknown) => e), GrpcStatus.UNKNOWN)).toBe(true);
    const probeOnly = new SimulatedRuntime({ probeFailureRate: 1 });
    const probeCri = new CriClient({ endpoint: 'svc-simulated://in-process', transport: new InProcessTransport(probeOnly) });
    const sandbox = await probeCri.runPodSandbox({ config: sandboxConfig('u4') });
    const container = await probeCri.createContainer({ podSandboxId: sandbox.podSandboxId, config: containerConfig('u4') });
    await probeCri.startContainer({ containerId: container.containerId });
    expect((await probeCri.execSync({ containerId: container.containerId, cmd: ['true'] })).exitCode).toBe(1);
    expect(probeOnly.probe(container.containerId).result).toBe('failure');
  });

  it.each([[{ startFailureRate: 2 }], [{ probeFailureRate: -0.1 }], [{ startDelayMs: -1 }], [{ podNetwork: '10.0.0.0/31' }]])('refuses %j', (settings) => {
    let error: unknown;
    try {
      new SimulatedRuntime(settings);
    } catch (e) {
      error = e;
    }
    expect(isStatusError(error, 'BadRequest')).toBe(true);
  });
});
