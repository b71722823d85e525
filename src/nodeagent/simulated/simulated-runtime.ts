/**
 * svc's simulated container runtime: the CRI `runtime.v1` RuntimeService and ImageService kept as
 * state in memory, with no process, image or network behind it. It is what a hollow node's agent
 * talks to (in process through `in-process-transport.ts`, or over a socket through
 * `runtime-server.ts`): sandboxes get an address, containers run until stopped, images are
 * "pulled" at once, and probes pass or fail as the settings' rates say. It names itself
 * `svc-simulated` in Version, so the Node it serves says `svc-simulated://<version>`.
 *
 * Every answer has the shape the protobuf decoder would give (every field, enum names, bigints):
 * stored sandboxes and containers are shaped once per change and shared by every list after.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Subject, type Observable } from 'rxjs';
import { SIMULATED_RUNTIME_NAME, SVC_VERSION } from '../../api/index.js';
import { CriError, GrpcStatus, messageType, parseIpv4Cidr, shapeMessage } from '../cri/index.js';
import type * as T from '../cri/index.js';
import { simulationSettings, type SimulationSettings } from './simulation-settings.js';

type Handler = (request: never) => unknown;

/** The calls that change what the runtime holds: each is followed by a `changes$` signal. */
const MUTATIONS: ReadonlySet<string> = new Set(['RunPodSandbox', 'StopPodSandbox', 'RemovePodSandbox', 'CreateContainer', 'StartContainer', 'StopContainer', 'RemoveContainer']);

interface SandboxRecord {
  readonly id: string;
  readonly config: T.PodSandboxConfig;
  readonly runtimeHandler: string;
  readonly createdAt: bigint;
  readonly ip: string;
  state: T.PodSandboxState;
  /** The list item and the status, shaped at the last change. */
  item: T.PodSandbox;
  status: T.PodSandboxStatus;
}

interface ContainerRecord {
  readonly id: string;
  readonly sandboxId: string;
  readonly config: T.ContainerConfig;
  readonly imageRef: string;
  readonly createdAt: bigint;
  state: T.ContainerState;
  startedAt: bigint;
  finishedAt: bigint;
  exitCode: number;
  reason: string;
  message: string;
  item: T.Container;
  status: T.ContainerStatus;
}

const nowNanos = (): bigint => BigInt(Date.now()) * 1_000_000n;
const newId = (): string => randomBytes(32).toString('hex');
const sleep = (ms: number): Promise<void> => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

/** Does every pair of the selector appear in the labels? */
function selects(selector: T.StringMap | undefined, labels: T.StringMap): boolean {
  if (!selector) return true;
  for (const key in selector) if (labels[key] !== selector[key]) return false;
  return true;
}

/** Gives addresses from a CIDR in turn, from its second one, wrapping before its last. */
class AddressPool {
  private base = 0;
  private size = 0;
  private next = 0;

  constructor(cidr: string) {
    this.use(cidr);
  }

  use(cidr: string): void {
    const { address, prefix } = parseIpv4Cidr(cidr);
    this.base = address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0) >>> 0;
    this.size = 2 ** (32 - prefix);
    this.next = 0;
  }

  take(): string {
    // .0 is the network, .1 the gateway, the last one broadcast: skipped as a bridge would.
    const offset = 2 + (this.next++ % (this.size - 3));
    const n = (this.base + offset) >>> 0;
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  }
}

export class SimulatedRuntime {
  readonly settings: SimulationSettings;
  private readonly sandboxes = new Map<string, SandboxRecord>();
  private readonly containers = new Map<string, ContainerRecord>();
  private readonly images = new Map<string, T.Image>();
  private readonly addresses: AddressPool;
  private readonly handlers: Record<string, Handler>;
  readonly #changes = new Subject<void>();
  /**
   * A signal after every call that changed sandboxes or containers (failed ones too: a start that
   * failed leaves an exited container). Nothing here changes on its own (no process exits), so
   * the agent's relist can follow it as the kubelet's evented PLEG follows the runtime's
   * container events, instead of listing an unchanged runtime every second.
   */
  readonly changes$: Observable<void> = this.#changes.asObservable();

  constructor(settings: Partial<SimulationSettings> = {}) {
    this.settings = simulationSettings(settings);
    this.addresses = new AddressPool(this.settings.podNetwork);
    this.handlers = {
      Version: () => ({ version: '0.1.0', runtimeName: SIMULATED_RUNTIME_NAME, runtimeVersion: SVC_VERSION, runtimeApiVersion: 'v1' }),
      Status: () => this.shaped('StatusResponse', { status: { conditions: [{ type: 'RuntimeReady', status: true }, { type: 'NetworkReady', status: true }] } }),
      UpdateRuntimeConfig: (r: T.UpdateRuntimeConfigRequest) => this.updateRuntimeConfig(r),
      RunPodSandbox: (r: T.RunPodSandboxRequest) => this.runPodSandbox(r),
      StopPodSandbox: (r: T.StopPodSandboxRequest) => this.stopPodSandbox(r.podSandboxId),
      RemovePodSandbox: (r: T.RemovePodSandboxRequest) => this.removePodSandbox(r.podSandboxId),
      PodSandboxStatus: (r: T.PodSandboxStatusRequest) => ({ status: this.sandbox(r.podSandboxId, 'PodSandboxStatus').status, info: {}, containersStatuses: [], timestamp: nowNanos() }),
      ListPodSandbox: (r: T.ListPodSandboxRequest) => ({ items: this.listSandboxes(r.filter) }),
      CreateContainer: (r: T.CreateContainerRequest) => this.createContainer(r),
      StartContainer: (r: T.StartContainerRequest) => this.startContainer(r.containerId),
      StopContainer: (r: T.StopContainerRequest) => this.stopContainer(r.containerId),
      RemoveContainer: (r: T.RemoveContainerRequest) => this.removeContainer(r.containerId),
      ListContainers: (r: T.ListContainersRequest) => ({ containers: this.listContainers(r.filter) }),
      ContainerStatus: (r: T.ContainerStatusRequest) => ({ status: this.container(r.containerId, 'ContainerStatus').status, info: {} }),
      UpdateContainerResources: (r: T.UpdateContainerResourcesRequest) => (this.container(r.containerId, 'UpdateContainerResources'), {}),
      ReopenContainerLog: (r: T.ReopenContainerLogRequest) => (this.container(r.containerId, 'ReopenContainerLog'), {}),
      ExecSync: (r: T.ExecSyncRequest) => this.execSync(r),
      ContainerStats: (r: T.ContainerStatsRequest) => ({ stats: this.stats(this.container(r.containerId, 'ContainerStats')) }),
      ListContainerStats: (r: T.ListContainerStatsRequest) => ({
        stats: this.listContainers({ id: r.filter?.id ?? '', podSandboxId: r.filter?.podSandboxId ?? '', labelSelector: r.filter?.labelSelector ?? {}, state: { state: 'CONTAINER_RUNNING' } }).map((c) => this.stats(this.containers.get(c.id)!)),
      }),
      ListImages: () => ({ images: [...this.images.values()] }),
      ImageStatus: (r: T.ImageStatusRequest) => ({ image: this.images.get(r.image?.image ?? '') ?? null, info: {} }),
      PullImage: (r: T.PullImageRequest) => ({ imageRef: this.pull(r.image?.image ?? '') }),
      RemoveImage: (r: T.RemoveImageRequest) => (this.images.delete(r.image?.image ?? ''), {}),
      ImageFsInfo: () => ({ imageFilesystems: [], containerFilesystems: [] }),
    };
  }

  /** How many sandboxes and containers it holds (for the hollow-node process's own figures). */
  counts(): { sandboxes: number; containers: number; running: number } {
    let running = 0;
    for (const container of this.containers.values()) if (container.state === 'CONTAINER_RUNNING') running++;
    return { sandboxes: this.sandboxes.size, containers: this.containers.size, running };
  }

  /**
   * Answers one call. `request` has the decoded shape of the method's request message; the
   * answer has the decoded shape of its response. Failures are CriErrors with the gRPC code a
   * runtime would give (NOT_FOUND for an unknown id, UNIMPLEMENTED for streaming).
   */
  async handle(service: T.CriService, method: string, request: object): Promise<unknown> {
    const handler = this.handlers[method];
    if (!handler) throw new CriError(`${service}/${method}`, GrpcStatus.UNIMPLEMENTED, `the simulated runtime (${SIMULATED_RUNTIME_NAME}) has no ${method}: it runs no processes to stream from`);
    if (!MUTATIONS.has(method)) return handler(request as never);
    try {
      return await handler(request as never);
    } finally {
      this.#changes.next();
    }
  }

  /** A network probe's attempt (httpGet, tcpSocket, grpc), which no socket can answer here. */
  probe(containerId: string): { result: 'success' | 'failure'; message: string } {
    const container = this.containers.get(containerId);
    if (!container || container.state !== 'CONTAINER_RUNNING') return { result: 'failure', message: `simulated container ${containerId.slice(0, 12)} is not running` };
    return this.chance(this.settings.probeFailureRate) ? { result: 'failure', message: 'simulated probe failure' } : { result: 'success', message: 'simulated probe success' };
  }

  private chance(rate: number): boolean {
    return rate > 0 && this.settings.random() < rate;
  }

  private shaped<R>(type: string, value: object): R {
    return shapeMessage<R>(messageType(type), value);
  }

  private updateRuntimeConfig(request: T.UpdateRuntimeConfigRequest): object {
    const ipv4 = (request.runtimeConfig?.networkConfig?.podCidr ?? '').split(',').find((cidr) => cidr.includes('.'));
    if (ipv4) {
      try {
        this.addresses.use(ipv4.trim());
      } catch (error) {
        throw new CriError('RuntimeService/UpdateRuntimeConfig', GrpcStatus.INVALID_ARGUMENT, (error as Error).message);
      }
    }
    return {};
  }

  private sandbox(id: string, method: string): SandboxRecord {
    const record = this.sandboxes.get(id);
    if (!record) throw new CriError(`RuntimeService/${method}`, GrpcStatus.NOT_FOUND, `an error occurred when try to find sandbox "${id}": not found`);
    return record;
  }

  private container(id: string, method: string): ContainerRecord {
    const record = this.containers.get(id);
    if (!record) throw new CriError(`RuntimeService/${method}`, GrpcStatus.NOT_FOUND, `an error occurred when try to find container "${id}": not found`);
    return record;
  }

  private async runPodSandbox(request: T.RunPodSandboxRequest): Promise<T.RunPodSandboxResponse> {
    const config = request.config;
    if (!config?.metadata) throw new CriError('RuntimeService/RunPodSandbox', GrpcStatus.INVALID_ARGUMENT, 'sandbox config must include metadata');
    await sleep(this.settings.startDelayMs);
    if (this.chance(this.settings.sandboxFailureRate)) throw new CriError('RuntimeService/RunPodSandbox', GrpcStatus.UNKNOWN, 'simulated sandbox failure (svc-simulated sandboxFailureRate)');
    const hostNetwork = config.linux?.securityContext?.namespaceOptions?.network === 'NODE';
    const record: SandboxRecord = {
      id: newId(),
      config,
      runtimeHandler: request.runtimeHandler,
      createdAt: nowNanos(),
      ip: hostNetwork ? '' : this.addresses.take(),
      state: 'SANDBOX_READY',
      item: undefined as never,
      status: undefined as never,
    };
    this.reshapeSandbox(record);
    this.sandboxes.set(record.id, record);
    return { podSandboxId: record.id };
  }

  private reshapeSandbox(record: SandboxRecord): void {
    const common = { id: record.id, metadata: record.config.metadata, state: record.state, createdAt: record.createdAt, labels: record.config.labels, annotations: record.config.annotations, runtimeHandler: record.runtimeHandler };
    record.item = this.shaped('PodSandbox', common);
    record.status = this.shaped('PodSandboxStatus', {
      ...common,
      network: { ip: record.ip, additionalIps: [] },
      linux: { namespaces: { options: record.config.linux?.securityContext?.namespaceOptions ?? {} } },
    });
  }

  private stopPodSandbox(id: string): object {
    const record = this.sandboxes.get(id);
    // Stopping what is gone is done (the CRI's rule: StopPodSandbox is idempotent).
    if (!record) return {};
    for (const container of this.containers.values()) if (container.sandboxId === id && container.state === 'CONTAINER_RUNNING') this.exit(container, 137, 'Error', 'sandbox stopped');
    if (record.state !== 'SANDBOX_NOTREADY') {
      record.state = 'SANDBOX_NOTREADY';
      this.reshapeSandbox(record);
    }
    return {};
  }

  private removePodSandbox(id: string): object {
    for (const container of [...this.containers.values()]) if (container.sandboxId === id) this.containers.delete(container.id);
    this.sandboxes.delete(id);
    return {};
  }

  private listSandboxes(filter: T.PodSandboxFilter | null | undefined): T.PodSandbox[] {
    if (filter?.id) {
      const one = this.sandboxes.get(filter.id);
      return one && (!filter.state || one.state === filter.state.state) && selects(filter.labelSelector, one.config.labels) ? [one.item] : [];
    }
    const out: T.PodSandbox[] = [];
    for (const record of this.sandboxes.values()) {
      if (filter?.state && record.state !== filter.state.state) continue;
      if (!selects(filter?.labelSelector, record.config.labels)) continue;
      out.push(record.item);
    }
    return out;
  }

  private createContainer(request: T.CreateContainerRequest): T.CreateContainerResponse {
    const sandbox = this.sandbox(request.podSandboxId, 'CreateContainer');
    const config = request.config;
    if (!config?.metadata || !config.image) throw new CriError('RuntimeService/CreateContainer', GrpcStatus.INVALID_ARGUMENT, 'container config must include metadata and image');
    if (sandbox.state !== 'SANDBOX_READY') throw new CriError('RuntimeService/CreateContainer', GrpcStatus.FAILED_PRECONDITION, `sandbox ${sandbox.id} is not ready`);
    const record: ContainerRecord = {
      id: newId(),
      sandboxId: sandbox.id,
      config,
      imageRef: this.images.get(config.image.image)?.id ?? this.pull(config.image.image),
      createdAt: nowNanos(),
      state: 'CONTAINER_CREATED',
      startedAt: 0n,
      finishedAt: 0n,
      exitCode: 0,
      reason: '',
      message: '',
      item: undefined as never,
      status: undefined as never,
    };
    this.reshapeContainer(record);
    this.containers.set(record.id, record);
    return { containerId: record.id };
  }

  private reshapeContainer(record: ContainerRecord): void {
    const { config } = record;
    const common = { id: record.id, metadata: config.metadata, image: config.image, imageRef: record.imageRef, state: record.state, createdAt: record.createdAt, labels: config.labels, annotations: config.annotations };
    record.item = this.shaped('Container', { ...common, podSandboxId: record.sandboxId });
    const logDirectory = this.sandboxes.get(record.sandboxId)?.config.logDirectory ?? '';
    record.status = this.shaped('ContainerStatus', {
      ...common,
      startedAt: record.startedAt,
      finishedAt: record.finishedAt,
      exitCode: record.exitCode,
      reason: record.reason,
      message: record.message,
      mounts: config.mounts,
      logPath: config.logPath && logDirectory ? `${logDirectory}/${config.logPath}` : config.logPath,
      resources: config.linux?.resources ? { linux: config.linux.resources } : null,
    });
  }

  private async startContainer(id: string): Promise<object> {
    const record = this.container(id, 'StartContainer');
    if (record.state !== 'CONTAINER_CREATED') throw new CriError('RuntimeService/StartContainer', GrpcStatus.FAILED_PRECONDITION, `container ${id} is in state ${record.state}, not CONTAINER_CREATED`);
    await sleep(this.settings.startDelayMs);
    // Removed while it was starting: the agent gave up on it.
    if (this.containers.get(id) !== record) throw new CriError('RuntimeService/StartContainer', GrpcStatus.NOT_FOUND, `container ${id} was removed while starting`);
    if (this.chance(this.settings.startFailureRate)) {
      record.startedAt = nowNanos();
      this.exit(record, 128, 'StartError', 'simulated start failure (svc-simulated startFailureRate)');
      throw new CriError('RuntimeService/StartContainer', GrpcStatus.UNKNOWN, 'failed to start containerd task: simulated start failure (svc-simulated startFailureRate)');
    }
    record.state = 'CONTAINER_RUNNING';
    record.startedAt = nowNanos();
    this.reshapeContainer(record);
    return {};
  }

  private exit(record: ContainerRecord, exitCode: number, reason: string, message: string): void {
    record.state = 'CONTAINER_EXITED';
    record.finishedAt = nowNanos();
    record.exitCode = exitCode;
    record.reason = reason;
    record.message = message;
    this.reshapeContainer(record);
  }

  private stopContainer(id: string): object {
    const record = this.containers.get(id);
    if (!record) return {};
    // A simulated process ends on SIGTERM at once, with status 0.
    if (record.state === 'CONTAINER_RUNNING') this.exit(record, 0, 'Completed', '');
    else if (record.state === 'CONTAINER_CREATED') this.exit(record, 0, 'Completed', 'never started');
    return {};
  }

  private removeContainer(id: string): object {
    this.containers.delete(id);
    return {};
  }

  private listContainers(filter: Partial<T.ContainerFilter> | null | undefined): T.Container[] {
    const matches = (record: ContainerRecord): boolean =>
      (!filter?.state || record.state === filter.state.state) && (!filter?.podSandboxId || record.sandboxId === filter.podSandboxId) && selects(filter?.labelSelector, record.config.labels);
    if (filter?.id) {
      const one = this.containers.get(filter.id);
      return one && matches(one) ? [one.item] : [];
    }
    const out: T.Container[] = [];
    for (const record of this.containers.values()) if (matches(record)) out.push(record.item);
    return out;
  }

  private execSync(request: T.ExecSyncRequest): T.ExecSyncResponse {
    const record = this.container(request.containerId, 'ExecSync');
    if (record.state !== 'CONTAINER_RUNNING') throw new CriError('RuntimeService/ExecSync', GrpcStatus.FAILED_PRECONDITION, `container ${request.containerId} is not running`);
    const fail = this.chance(this.settings.probeFailureRate);
    return { stdout: new Uint8Array(), stderr: Buffer.from(fail ? 'simulated exec failure\n' : ''), exitCode: fail ? 1 : 0 };
  }

  private stats(record: ContainerRecord): T.ContainerStats {
    const at = nowNanos();
    return this.shaped('ContainerStats', {
      attributes: { id: record.id, metadata: record.config.metadata, labels: record.config.labels, annotations: record.config.annotations },
      cpu: { timestamp: at, usageCoreNanoSeconds: { value: 0 }, usageNanoCores: { value: 0 } },
      memory: { timestamp: at, workingSetBytes: { value: 0 } },
    });
  }

  private pull(image: string): string {
    if (!image) throw new CriError('ImageService/PullImage', GrpcStatus.INVALID_ARGUMENT, 'no image named');
    let known = this.images.get(image);
    if (!known) {
      // A stable digest per name: the same image has the same ref on every hollow node.
      const id = `sha256:${createHash('sha256').update(image).digest('hex')}`;
      known = this.shaped<T.Image>('Image', { id, repoTags: [image], repoDigests: [], size: 0, spec: { image } });
      this.images.set(image, known);
    }
    return known.id;
  }
}
