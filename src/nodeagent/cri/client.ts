/**
 * A typed client of a container runtime's CRI (`runtime.v1` RuntimeService and ImageService)
 * over gRPC, as the node agent uses it. Each method is one unary call with a deadline; failures
 * reject with a CriError carrying the gRPC code. The calls go through a {@link CriTransport}:
 * gRPC to `endpoint` unless another one is given (an in-process runtime).
 */
import { CriError, GrpcStatus } from './cri-error.js';
import { GrpcTransport } from './grpc-transport.js';
import type { CriService, CriTransport } from './transport.js';
import type * as T from './types.js';

export interface CriClientOptions {
  /** `unix:///run/containerd/containerd.sock`, a bare socket path, or `host:port`. */
  readonly endpoint: string;
  /** Image service endpoint; defaults to `endpoint`. */
  readonly imageEndpoint?: string;
  /** Deadline of every call but image pulls (`--runtime-request-timeout`); default 2 minutes. */
  readonly timeoutMs?: number;
  /** Deadline of PullImage; default none (pulls are bounded by the registry, not by us). */
  readonly pullTimeoutMs?: number;
  /**
   * Told of every call when it settles: the method (`RuntimeService/RunPodSandbox`), when it
   * started (`performance.now()`), how long it took, and its error. For metrics and for
   * benchmarks that split a pod's start into runtime time and the agent's own.
   */
  readonly onCall?: (call: CriCallRecord) => void;
  /**
   * Where the calls go instead of gRPC to `endpoint` (which then only names the runtime in
   * messages): svc's simulated runtime in this process, for hollow nodes.
   */
  readonly transport?: CriTransport;
  /**
   * How long gRPC waits before it connects again after a failed connect, every time (default
   * gRPC's: 1 s, growing 1.6-fold to 2 minutes). Until then a call fails at once without trying.
   * A caller that polls a runtime which is still starting sets its poll interval here, or its
   * polls after the first refused connect go unanswered for a second, then for longer.
   */
  readonly reconnectBackoffMs?: number;
}

/** One settled CRI call, as {@link CriClientOptions.onCall} reports it. */
export interface CriCallRecord {
  readonly method: string;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly error?: CriError | undefined;
}

export interface CallOptions {
  /** Overrides the client's deadline for this call. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** gRPC wants `unix:///abs/path`; kubelet-style flags may give a bare path or `unix:/path`. */
export function grpcTarget(endpoint: string): string {
  if (endpoint.startsWith('/')) return `unix://${endpoint}`;
  if (endpoint.startsWith('unix:') && !endpoint.startsWith('unix://')) return `unix://${endpoint.slice('unix:'.length)}`;
  return endpoint;
}

export class CriClient {
  private readonly transport: CriTransport;
  private readonly timeoutMs: number;
  private readonly pullTimeoutMs: number | undefined;
  private readonly onCall: ((call: CriCallRecord) => void) | undefined;

  constructor(options: CriClientOptions) {
    this.transport =
      options.transport ?? new GrpcTransport(grpcTarget(options.endpoint), grpcTarget(options.imageEndpoint ?? options.endpoint), options.reconnectBackoffMs);
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.pullTimeoutMs = options.pullTimeoutMs;
    this.onCall = options.onCall;
  }

  close(): void {
    this.transport.close();
  }

  private call<Req extends object, Res>(service: CriService, name: string, request: T.Input<Req>, options: CallOptions = {}, defaultTimeout: number | undefined = this.timeoutMs): Promise<Res> {
    const method = `${service}/${name}`;
    const timeout = options.timeoutMs ?? defaultTimeout;
    const startedAt = performance.now();
    const settled = (error?: CriError): void => this.onCall?.({ method, startedAt, durationMs: performance.now() - startedAt, error });
    if (options.signal?.aborted) return Promise.reject(new CriError(method, GrpcStatus.CANCELLED, 'aborted before the call'));
    return this.transport.unary({ service, method: name, request, deadline: timeout === undefined ? undefined : Date.now() + timeout, signal: options.signal }).then(
      (response) => {
        settled();
        return response as Res;
      },
      (error: unknown) => {
        const failure = error instanceof CriError ? error : new CriError(method, GrpcStatus.INTERNAL, (error as Error).message);
        settled(failure);
        throw failure;
      },
    );
  }

  // ---- RuntimeService ----

  version(request: T.Input<T.VersionRequest> = { version: 'v1' }, options?: CallOptions): Promise<T.VersionResponse> {
    return this.call('RuntimeService', 'Version', request, options);
  }
  status(request: T.Input<T.StatusRequest> = {}, options?: CallOptions): Promise<T.StatusResponse> {
    return this.call('RuntimeService', 'Status', request, options);
  }
  updateRuntimeConfig(request: T.Input<T.UpdateRuntimeConfigRequest>, options?: CallOptions): Promise<T.UpdateRuntimeConfigResponse> {
    return this.call('RuntimeService', 'UpdateRuntimeConfig', request, options);
  }
  runPodSandbox(request: T.Input<T.RunPodSandboxRequest>, options?: CallOptions): Promise<T.RunPodSandboxResponse> {
    return this.call('RuntimeService', 'RunPodSandbox', request, options);
  }
  stopPodSandbox(request: T.Input<T.StopPodSandboxRequest>, options?: CallOptions): Promise<T.StopPodSandboxResponse> {
    return this.call('RuntimeService', 'StopPodSandbox', request, options);
  }
  removePodSandbox(request: T.Input<T.RemovePodSandboxRequest>, options?: CallOptions): Promise<T.RemovePodSandboxResponse> {
    return this.call('RuntimeService', 'RemovePodSandbox', request, options);
  }
  podSandboxStatus(request: T.Input<T.PodSandboxStatusRequest>, options?: CallOptions): Promise<T.PodSandboxStatusResponse> {
    return this.call('RuntimeService', 'PodSandboxStatus', request, options);
  }
  listPodSandbox(request: T.Input<T.ListPodSandboxRequest> = {}, options?: CallOptions): Promise<T.ListPodSandboxResponse> {
    return this.call('RuntimeService', 'ListPodSandbox', request, options);
  }
  createContainer(request: T.Input<T.CreateContainerRequest>, options?: CallOptions): Promise<T.CreateContainerResponse> {
    return this.call('RuntimeService', 'CreateContainer', request, options);
  }
  startContainer(request: T.Input<T.StartContainerRequest>, options?: CallOptions): Promise<T.StartContainerResponse> {
    return this.call('RuntimeService', 'StartContainer', request, options);
  }
  stopContainer(request: T.Input<T.StopContainerRequest>, options?: CallOptions): Promise<T.StopContainerResponse> {
    return this.call('RuntimeService', 'StopContainer', request, options);
  }
  removeContainer(request: T.Input<T.RemoveContainerRequest>, options?: CallOptions): Promise<T.RemoveContainerResponse> {
    return this.call('RuntimeService', 'RemoveContainer', request, options);
  }
  listContainers(request: T.Input<T.ListContainersRequest> = {}, options?: CallOptions): Promise<T.ListContainersResponse> {
    return this.call('RuntimeService', 'ListContainers', request, options);
  }
  containerStatus(request: T.Input<T.ContainerStatusRequest>, options?: CallOptions): Promise<T.ContainerStatusResponse> {
    return this.call('RuntimeService', 'ContainerStatus', request, options);
  }
  updateContainerResources(request: T.Input<T.UpdateContainerResourcesRequest>, options?: CallOptions): Promise<T.UpdateContainerResourcesResponse> {
    return this.call('RuntimeService', 'UpdateContainerResources', request, options);
  }
  reopenContainerLog(request: T.Input<T.ReopenContainerLogRequest>, options?: CallOptions): Promise<T.ReopenContainerLogResponse> {
    return this.call('RuntimeService', 'ReopenContainerLog', request, options);
  }
  /**
   * Runs a command to completion. The call's deadline is the command's timeout plus the
   * client's, so a long command is not cut off by the default deadline before the runtime's.
   */
  execSync(request: T.Input<T.ExecSyncRequest>, options?: CallOptions): Promise<T.ExecSyncResponse> {
    const commandMs = Number(request.timeout ?? 0) * 1000;
    const timeoutMs = options?.timeoutMs ?? (commandMs > 0 ? commandMs + this.timeoutMs : undefined);
    return this.call('RuntimeService', 'ExecSync', request, { ...options, ...(timeoutMs === undefined ? {} : { timeoutMs }) }, undefined);
  }
  exec(request: T.Input<T.ExecRequest>, options?: CallOptions): Promise<T.ExecResponse> {
    return this.call('RuntimeService', 'Exec', request, options);
  }
  attach(request: T.Input<T.AttachRequest>, options?: CallOptions): Promise<T.AttachResponse> {
    return this.call('RuntimeService', 'Attach', request, options);
  }
  portForward(request: T.Input<T.PortForwardRequest>, options?: CallOptions): Promise<T.PortForwardResponse> {
    return this.call('RuntimeService', 'PortForward', request, options);
  }
  containerStats(request: T.Input<T.ContainerStatsRequest>, options?: CallOptions): Promise<T.ContainerStatsResponse> {
    return this.call('RuntimeService', 'ContainerStats', request, options);
  }
  listContainerStats(request: T.Input<T.ListContainerStatsRequest> = {}, options?: CallOptions): Promise<T.ListContainerStatsResponse> {
    return this.call('RuntimeService', 'ListContainerStats', request, options);
  }

  // ---- ImageService ----

  listImages(request: T.Input<T.ListImagesRequest> = {}, options?: CallOptions): Promise<T.ListImagesResponse> {
    return this.call('ImageService', 'ListImages', request, options);
  }
  imageStatus(request: T.Input<T.ImageStatusRequest>, options?: CallOptions): Promise<T.ImageStatusResponse> {
    return this.call('ImageService', 'ImageStatus', request, options);
  }
  pullImage(request: T.Input<T.PullImageRequest>, options?: CallOptions): Promise<T.PullImageResponse> {
    return this.call('ImageService', 'PullImage', request, options, this.pullTimeoutMs);
  }
  removeImage(request: T.Input<T.RemoveImageRequest>, options?: CallOptions): Promise<T.RemoveImageResponse> {
    return this.call('ImageService', 'RemoveImage', request, options);
  }
  imageFsInfo(options?: CallOptions): Promise<T.ImageFsInfoResponse> {
    return this.call('ImageService', 'ImageFsInfo', {}, options);
  }
}
