/**
 * svc's simulated container runtime: the CRI `runtime.v1` RuntimeService and ImageService kept as
 * state in memory, with no process, image or network behind it. It is what a hollow node's agent
 * talks to (in process through `in-process-transport.ts`, or over a socket through
 * `runtime-server.ts`): sandboxes get an address, containers run until stopped, images are
 * "pulled" at once, and probes pass or fail as the settings' rates say. It names itself
 * `svc-simulated` in Version, so the Node it serves says `svc-simulated://<version>`.
 *
 * Every answer has the shape the protobuf decoder would give (every field, enum names, bigints).
 * A sandbox or container is kept as its two answers and nothing else: its list item and its status
 * are shaped through the proto when it is made, sharing their metadata, labels and annotations,
 * and each change replaces them with copies that differ in the fields it changed (state, times,
 * exit). Every read hands out the current pair; the request's config is not kept (what a CRI
 * answer never carries — env, command, security context, DNS — is dropped at the call).
 * Requests are read as the agent built them (`Input<...>`: any field may be left out, or be null
 * where the decoder gives null): the in-process transport hands them over unshaped, so every
 * field read here falls back to the CRI's default itself (proto3: '', 0, false, an enum's first
 * value, an empty map; an unset message null). A request decoded from the socket has every field
 * and reads the same.
 */
import { createHash, randomBytes } from 'node:crypto';
import type protobuf from 'protobufjs';
import { Subject, type Observable } from 'rxjs';
import { SIMULATED_RUNTIME_NAME, SVC_VERSION } from '../../api/index.js';
import { CriError, GrpcStatus, messageType, parseIpv4Cidr, shapeMessage } from '../cri/index.js';
import type * as T from '../cri/index.js';
import { simulationSettings, type SimulationSettings } from './simulation-settings.js';

type Handler = (request: never) => unknown;
type Req<R> = T.Input<R>;
/** A map as a request may carry it: a key whose value is undefined is not on the wire. */
type RequestMap = Readonly<Record<string, string | undefined>>;

/** The answers' message types by name, looked up once (a lookup in the proto's root walks its namespaces). */
const ANSWER_TYPES = new Map<string, protobuf.Type>();

/** The calls that change what the runtime holds: each is followed by a `changes$` signal. */
const MUTATIONS: ReadonlySet<string> = new Set(['RunPodSandbox', 'StopPodSandbox', 'RemovePodSandbox', 'CreateContainer', 'StartContainer', 'StopContainer', 'RemoveContainer']);

/**
 * A sandbox as the runtime keeps it: its two answers (their state is its state, their labels what
 * filters match) and the log directory its containers' log paths are joined to.
 */
interface SandboxRecord {
  readonly id: string;
  readonly logDirectory: string;
  item: T.PodSandbox;
  status: T.PodSandboxStatus;
}

/** A container as the runtime keeps it: its two answers (the status holds its state, times and exit). */
interface ContainerRecord {
  readonly id: string;
  readonly sandboxId: string;
  item: T.Container;
  status: T.ContainerStatus;
}

const nowNanos = (): bigint => BigInt(Date.now()) * 1_000_000n;
const newId = (): string => randomBytes(32).toString('hex');
const sleep = (ms: number): Promise<void> => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

/**
 * Does every pair of the selector appear in the labels? Either may be unset, and a key whose
 * value is undefined is absent (the wire leaves it out), in the selector and in the labels.
 */
function selects(selector: RequestMap | null | undefined, labels: RequestMap | null | undefined): boolean {
  if (!selector) return true;
  for (const key in selector) {
    const want = selector[key];
    if (want !== undefined && labels?.[key] !== want) return false;
  }
  return true;
}

/** A filter's state as the wire reads it: a state value with its enum unset is the enum's first. */
const sandboxStateOf = (value: Req<T.PodSandboxStateValue> | null | undefined): T.PodSandboxState | undefined => (value ? (value.state ?? 'SANDBOX_READY') : undefined);
const containerStateOf = (value: Req<T.ContainerStateValue> | null | undefined): T.ContainerState | undefined => (value ? (value.state ?? 'CONTAINER_CREATED') : undefined);

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
  private statusAnswer: T.StatusResponse | undefined;
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
      // The same answer every time: shaped once, shared as the lists' items are.
      Status: () => (this.statusAnswer ??= this.shaped<T.StatusResponse>('StatusResponse', { status: { conditions: [{ type: 'RuntimeReady', status: true }, { type: 'NetworkReady', status: true }] } })),
      UpdateRuntimeConfig: (r: Req<T.UpdateRuntimeConfigRequest>) => this.updateRuntimeConfig(r),
      RunPodSandbox: (r: Req<T.RunPodSandboxRequest>) => this.runPodSandbox(r),
      StopPodSandbox: (r: Req<T.StopPodSandboxRequest>) => this.stopPodSandbox(r.podSandboxId ?? ''),
      RemovePodSandbox: (r: Req<T.RemovePodSandboxRequest>) => this.removePodSandbox(r.podSandboxId ?? ''),
      PodSandboxStatus: (r: Req<T.PodSandboxStatusRequest>) => ({ status: this.sandbox(r.podSandboxId ?? '', 'PodSandboxStatus').status, info: {}, containersStatuses: [], timestamp: nowNanos() }),
      ListPodSandbox: (r: Req<T.ListPodSandboxRequest>) => ({ items: this.listSandboxes(r.filter) }),
      CreateContainer: (r: Req<T.CreateContainerRequest>) => this.createContainer(r),
      StartContainer: (r: Req<T.StartContainerRequest>) => this.startContainer(r.containerId ?? ''),
      StopContainer: (r: Req<T.StopContainerRequest>) => this.stopContainer(r.containerId ?? ''),
      RemoveContainer: (r: Req<T.RemoveContainerRequest>) => this.removeContainer(r.containerId ?? ''),
      ListContainers: (r: Req<T.ListContainersRequest>) => ({ containers: this.listContainers(r.filter) }),
      ContainerStatus: (r: Req<T.ContainerStatusRequest>) => ({ status: this.container(r.containerId ?? '', 'ContainerStatus').status, info: {} }),
      UpdateContainerResources: (r: Req<T.UpdateContainerResourcesRequest>) => (this.container(r.containerId ?? '', 'UpdateContainerResources'), {}),
      ReopenContainerLog: (r: Req<T.ReopenContainerLogRequest>) => (this.container(r.containerId ?? '', 'ReopenContainerLog'), {}),
      ExecSync: (r: Req<T.ExecSyncRequest>) => this.execSync(r.containerId ?? ''),
      ContainerStats: (r: Req<T.ContainerStatsRequest>) => ({ stats: this.stats(this.container(r.containerId ?? '', 'ContainerStats')) }),
      ListContainerStats: (r: Req<T.ListContainerStatsRequest>) => ({
        stats: this.listContainers({ id: r.filter?.id, podSandboxId: r.filter?.podSandboxId, labelSelector: r.filter?.labelSelector, state: { state: 'CONTAINER_RUNNING' } }).map((c) => this.stats(this.containers.get(c.id)!)),
      }),
      ListImages: () => ({ images: [...this.images.values()] }),
      ImageStatus: (r: Req<T.ImageStatusRequest>) => ({ image: this.images.get(r.image?.image ?? '') ?? null, info: {} }),
      PullImage: (r: Req<T.PullImageRequest>) => ({ imageRef: this.pull(r.image?.image ?? '') }),
      RemoveImage: (r: Req<T.RemoveImageRequest>) => (this.images.delete(r.image?.image ?? ''), {}),
      ImageFsInfo: () => ({ imageFilesystems: [], containerFilesystems: [] }),
    };
  }

  /** How many sandboxes and containers it holds (for the hollow-node process's own figures). */
  counts(): { sandboxes: number; containers: number; running: number } {
    let running = 0;
    for (const container of this.containers.values()) if (container.status.state === 'CONTAINER_RUNNING') running++;
    return { sandboxes: this.sandboxes.size, containers: this.containers.size, running };
  }

  /**
   * Answers one call. `request` is the method's request message as the agent built it
   * (`Input<...>`, fields left out read as their defaults) or as the decoder gives it; the answer
   * has the decoded shape of its response. Failures are CriErrors with the gRPC code a
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
    if (!container || container.status.state !== 'CONTAINER_RUNNING') return { result: 'failure', message: `simulated container ${containerId.slice(0, 12)} is not running` };
    return this.chance(this.settings.probeFailureRate) ? { result: 'failure', message: 'simulated probe failure' } : { result: 'success', message: 'simulated probe success' };
  }

  private chance(rate: number): boolean {
    return rate > 0 && this.settings.random() < rate;
  }

  private shaped<R>(type: string, value: object): R {
    let message = ANSWER_TYPES.get(type);
    if (!message) ANSWER_TYPES.set(type, (message = messageType(type)));
    return shapeMessage<R>(message, value);
  }

  private updateRuntimeConfig(request: Req<T.UpdateRuntimeConfigRequest>): object {
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

  private async runPodSandbox(request: Req<T.RunPodSandboxRequest>): Promise<T.RunPodSandboxResponse> {
    const config = request.config;
    if (!config?.metadata) throw new CriError('RuntimeService/RunPodSandbox', GrpcStatus.INVALID_ARGUMENT, 'sandbox config must include metadata');
    await sleep(this.settings.startDelayMs);
    if (this.chance(this.settings.sandboxFailureRate)) throw new CriError('RuntimeService/RunPodSandbox', GrpcStatus.UNKNOWN, 'simulated sandbox failure (svc-simulated sandboxFailureRate)');
    const namespaceOptions = config.linux?.securityContext?.namespaceOptions;
    const id = newId();
    const common = { id, state: 'SANDBOX_READY', createdAt: nowNanos(), runtimeHandler: request.runtimeHandler ?? '' };
    const status = this.shaped<T.PodSandboxStatus>('PodSandboxStatus', {
      ...common,
      metadata: config.metadata,
      labels: config.labels,
      annotations: config.annotations,
      network: { ip: namespaceOptions?.network === 'NODE' ? '' : this.addresses.take(), additionalIps: [] },
      linux: { namespaces: { options: namespaceOptions ?? {} } },
    });
    // The item's messages are the status's (the same proto types): shaped once, shared.
    const item: T.PodSandbox = { ...this.shaped<T.PodSandbox>('PodSandbox', common), metadata: status.metadata, labels: status.labels, annotations: status.annotations };
    this.sandboxes.set(id, { id, logDirectory: config.logDirectory ?? '', item, status });
    return { podSandboxId: id };
  }

  private stopPodSandbox(id: string): object {
    const record = this.sandboxes.get(id);
    // Stopping what is gone is done (the CRI's rule: StopPodSandbox is idempotent).
    if (!record) return {};
    for (const container of this.containers.values()) if (container.sandboxId === id && container.status.state === 'CONTAINER_RUNNING') this.exit(container, 137, 'Error', 'sandbox stopped');
    if (record.status.state !== 'SANDBOX_NOTREADY') {
      // New answers: the ones handed out before stay as they were.
      record.item = { ...record.item, state: 'SANDBOX_NOTREADY' };
      record.status = { ...record.status, state: 'SANDBOX_NOTREADY' };
    }
    return {};
  }

  private removePodSandbox(id: string): object {
    for (const container of [...this.containers.values()]) if (container.sandboxId === id) this.containers.delete(container.id);
    this.sandboxes.delete(id);
    return {};
  }

  private listSandboxes(filter: Req<T.PodSandboxFilter> | null | undefined): T.PodSandbox[] {
    const state = sandboxStateOf(filter?.state);
    if (filter?.id) {
      const one = this.sandboxes.get(filter.id);
      return one && (!state || one.item.state === state) && selects(filter.labelSelector, one.item.labels) ? [one.item] : [];
    }
    const out: T.PodSandbox[] = [];
    for (const { item } of this.sandboxes.values()) {
      if (state && item.state !== state) continue;
      if (!selects(filter?.labelSelector, item.labels)) continue;
      out.push(item);
    }
    return out;
  }

  private createContainer(request: Req<T.CreateContainerRequest>): T.CreateContainerResponse {
    const sandbox = this.sandbox(request.podSandboxId ?? '', 'CreateContainer');
    const config = request.config;
    if (!config?.metadata || !config.image) throw new CriError('RuntimeService/CreateContainer', GrpcStatus.INVALID_ARGUMENT, 'container config must include metadata and image');
    if (sandbox.status.state !== 'SANDBOX_READY') throw new CriError('RuntimeService/CreateContainer', GrpcStatus.FAILED_PRECONDITION, `sandbox ${sandbox.id} is not ready`);
    const image = config.image.image ?? '';
    const logDirectory = sandbox.logDirectory;
    const logPath = config.logPath ?? '';
    const id = newId();
    const common = { id, imageRef: this.images.get(image)?.id ?? this.pull(image), state: 'CONTAINER_CREATED', createdAt: nowNanos() };
    const status = this.shaped<T.ContainerStatus>('ContainerStatus', {
      ...common,
      metadata: config.metadata,
      image: config.image,
      labels: config.labels,
      annotations: config.annotations,
      startedAt: 0n,
      finishedAt: 0n,
      exitCode: 0,
      reason: '',
      message: '',
      mounts: config.mounts,
      logPath: logPath && logDirectory ? `${logDirectory}/${logPath}` : logPath,
      resources: config.linux?.resources ? { linux: config.linux.resources } : null,
    });
    // The item's messages are the status's (the same proto types): shaped once, shared.
    const item: T.Container = { ...this.shaped<T.Container>('Container', { ...common, podSandboxId: sandbox.id }), metadata: status.metadata, image: status.image, labels: status.labels, annotations: status.annotations };
    this.containers.set(id, { id, sandboxId: sandbox.id, item, status });
    return { containerId: id };
  }

  /** A change of a container: new answers (the ones handed out before stay as they were). */
  private change(record: ContainerRecord, status: Partial<T.ContainerStatus>): void {
    record.status = { ...record.status, ...status };
    if (status.state !== undefined && status.state !== record.item.state) record.item = { ...record.item, state: status.state };
  }

  private async startContainer(id: string): Promise<object> {
    const record = this.container(id, 'StartContainer');
    if (record.status.state !== 'CONTAINER_CREATED') throw new CriError('RuntimeService/StartContainer', GrpcStatus.FAILED_PRECONDITION, `container ${id} is in state ${record.status.state}, not CONTAINER_CREATED`);
    await sleep(this.settings.startDelayMs);
    // Removed while it was starting: the agent gave up on it.
    if (this.containers.get(id) !== record) throw new CriError('RuntimeService/StartContainer', GrpcStatus.NOT_FOUND, `container ${id} was removed while starting`);
    if (this.chance(this.settings.startFailureRate)) {
      this.exit(record, 128, 'StartError', 'simulated start failure (svc-simulated startFailureRate)', nowNanos());
      throw new CriError('RuntimeService/StartContainer', GrpcStatus.UNKNOWN, 'failed to start containerd task: simulated start failure (svc-simulated startFailureRate)');
    }
    this.change(record, { state: 'CONTAINER_RUNNING', startedAt: nowNanos() });
    return {};
  }

  /** `startedAt`: set with the exit, for a start that failed (the status says when it was tried). */
  private exit(record: ContainerRecord, exitCode: number, reason: string, message: string, startedAt?: bigint): void {
    this.change(record, { state: 'CONTAINER_EXITED', ...(startedAt !== undefined ? { startedAt } : {}), finishedAt: nowNanos(), exitCode, reason, message });
  }

  private stopContainer(id: string): object {
    const record = this.containers.get(id);
    if (!record) return {};
    // A simulated process ends on SIGTERM at once, with status 0.
    if (record.status.state === 'CONTAINER_RUNNING') this.exit(record, 0, 'Completed', '');
    else if (record.status.state === 'CONTAINER_CREATED') this.exit(record, 0, 'Completed', 'never started');
    return {};
  }

  private removeContainer(id: string): object {
    this.containers.delete(id);
    return {};
  }

  private listContainers(filter: Req<T.ContainerFilter> | null | undefined): T.Container[] {
    const state = containerStateOf(filter?.state);
    const matches = ({ item }: ContainerRecord): boolean =>
      (!state || item.state === state) && (!filter?.podSandboxId || item.podSandboxId === filter.podSandboxId) && selects(filter?.labelSelector, item.labels);
    if (filter?.id) {
      const one = this.containers.get(filter.id);
      return one && matches(one) ? [one.item] : [];
    }
    const out: T.Container[] = [];
    for (const record of this.containers.values()) if (matches(record)) out.push(record.item);
    return out;
  }

  private execSync(containerId: string): T.ExecSyncResponse {
    const record = this.container(containerId, 'ExecSync');
    if (record.status.state !== 'CONTAINER_RUNNING') throw new CriError('RuntimeService/ExecSync', GrpcStatus.FAILED_PRECONDITION, `container ${containerId} is not running`);
    const fail = this.chance(this.settings.probeFailureRate);
    return { stdout: new Uint8Array(), stderr: Buffer.from(fail ? 'simulated exec failure\n' : ''), exitCode: fail ? 1 : 0 };
  }

  private stats(record: ContainerRecord): T.ContainerStats {
    const at = nowNanos();
    return this.shaped('ContainerStats', {
      attributes: { id: record.id, metadata: record.item.metadata, labels: record.item.labels, annotations: record.item.annotations },
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
