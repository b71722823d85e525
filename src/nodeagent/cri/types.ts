/**
 * TypeScript shapes of the CRI messages in api-proto.ts, in protobufjs's camelCase. Responses
 * arrive with every field present (proto3 defaults filled in); 64-bit integers are `bigint`
 * because nanosecond timestamps and byte counts pass 2^53; enums are their names. Requests are
 * `Input<…>` of the same shapes: every field optional, 64-bit fields also taking a `number`.
 */

/** A request built from a message shape: any field may be left out. */
export type Input<T> = T extends bigint
  ? bigint | number
  : T extends Uint8Array
    ? Uint8Array
    : T extends readonly (infer E)[]
      ? readonly Input<E>[]
      : T extends object
        ? { readonly [K in keyof T]?: Input<T[K]> | undefined }
        : T;

export type StringMap = Record<string, string>;

export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export type MountPropagation = 'PROPAGATION_PRIVATE' | 'PROPAGATION_HOST_TO_CONTAINER' | 'PROPAGATION_BIDIRECTIONAL';
export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';
export type SupplementalGroupsPolicy = 'Merge' | 'Strict';
export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
export type ContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';
export type SecurityProfileType = 'RuntimeDefault' | 'Unconfined' | 'Localhost';

export interface Int64Value { value: bigint }
export interface UInt64Value { value: bigint }
export interface KeyValue { key: string; value: string }
export interface IDMapping { hostId: number; containerId: number; length: number }
export interface UserNamespace { mode: NamespaceMode; uids: IDMapping[]; gids: IDMapping[] }
export interface NamespaceOption { network: NamespaceMode; pid: NamespaceMode; ipc: NamespaceMode; targetId: string; usernsOptions: UserNamespace | null }
export interface SELinuxOption { user: string; role: string; type: string; level: string }
export interface SecurityProfile { profileType: SecurityProfileType; localhostRef: string }
export interface ImageSpec { image: string; annotations: StringMap; userSpecifiedImage: string; runtimeHandler: string }
export interface Mount {
  containerPath: string;
  hostPath: string;
  readonly: boolean;
  selinuxRelabel: boolean;
  propagation: MountPropagation;
  uidMappings: IDMapping[];
  gidMappings: IDMapping[];
  recursiveReadOnly: boolean;
  image: ImageSpec | null;
}
export interface Device { containerPath: string; hostPath: string; permissions: string }
export interface HugepageLimit { pageSize: string; limit: bigint }
export interface LinuxContainerResources {
  cpuPeriod: bigint;
  cpuQuota: bigint;
  cpuShares: bigint;
  memoryLimitInBytes: bigint;
  oomScoreAdj: bigint;
  cpusetCpus: string;
  cpusetMems: string;
  hugepageLimits: HugepageLimit[];
  unified: StringMap;
  memorySwapLimitInBytes: bigint;
}

// ---- version, status, runtime config ----

export interface VersionRequest { version: string }
export interface VersionResponse { version: string; runtimeName: string; runtimeVersion: string; runtimeApiVersion: string }
export interface RuntimeCondition { type: string; status: boolean; reason: string; message: string }
export interface StatusRequest { verbose: boolean }
export interface StatusResponse {
  status: { conditions: RuntimeCondition[] } | null;
  info: StringMap;
  runtimeHandlers: { name: string; features: { recursiveReadOnlyMounts: boolean; userNamespaces: boolean } | null }[];
  features: { supplementalGroupsPolicy: boolean } | null;
}
export interface UpdateRuntimeConfigRequest { runtimeConfig: { networkConfig: { podCidr: string } | null } | null }
export type Empty = Record<string, never>;

// ---- pod sandboxes ----

export interface DNSConfig { servers: string[]; searches: string[]; options: string[] }
export interface PortMapping { protocol: Protocol; containerPort: number; hostPort: number; hostIp: string }
export interface LinuxSandboxSecurityContext {
  namespaceOptions: NamespaceOption | null;
  selinuxOptions: SELinuxOption | null;
  runAsUser: Int64Value | null;
  readonlyRootfs: boolean;
  supplementalGroups: bigint[];
  privileged: boolean;
  seccompProfilePath: string;
  runAsGroup: Int64Value | null;
  seccomp: SecurityProfile | null;
  apparmor: SecurityProfile | null;
  supplementalGroupsPolicy: SupplementalGroupsPolicy;
}
export interface LinuxPodSandboxConfig {
  cgroupParent: string;
  securityContext: LinuxSandboxSecurityContext | null;
  sysctls: StringMap;
  overhead: LinuxContainerResources | null;
  resources: LinuxContainerResources | null;
}
export interface PodSandboxMetadata { name: string; uid: string; namespace: string; attempt: number }
export interface PodSandboxConfig {
  metadata: PodSandboxMetadata | null;
  hostname: string;
  logDirectory: string;
  dnsConfig: DNSConfig | null;
  portMappings: PortMapping[];
  labels: StringMap;
  annotations: StringMap;
  linux: LinuxPodSandboxConfig | null;
}
export interface RunPodSandboxRequest { config: PodSandboxConfig | null; runtimeHandler: string }
export interface RunPodSandboxResponse { podSandboxId: string }
export interface PodSandboxIdRequest { podSandboxId: string }
export interface PodSandboxStatusRequest { podSandboxId: string; verbose: boolean }
export interface PodSandboxStatus {
  id: string;
  metadata: PodSandboxMetadata | null;
  state: PodSandboxState;
  createdAt: bigint;
  network: { ip: string; additionalIps: { ip: string }[] } | null;
  linux: { namespaces: { options: NamespaceOption | null } | null } | null;
  labels: StringMap;
  annotations: StringMap;
  runtimeHandler: string;
}
export interface PodSandboxStatusResponse {
  status: PodSandboxStatus | null;
  /** Verbose only: JSON strings keyed by topic (containerd puts the runtime spec and netns under `info`). */
  info: StringMap;
  containersStatuses: ContainerStatus[];
  timestamp: bigint;
}
export interface PodSandboxFilter { id: string; state: { state: PodSandboxState } | null; labelSelector: StringMap }
export interface ListPodSandboxRequest { filter: PodSandboxFilter | null }
export interface PodSandbox {
  id: string;
  metadata: PodSandboxMetadata | null;
  state: PodSandboxState;
  createdAt: bigint;
  labels: StringMap;
  annotations: StringMap;
  runtimeHandler: string;
}
export interface ListPodSandboxResponse { items: PodSandbox[] }

// ---- containers ----

export interface Capability { addCapabilities: string[]; dropCapabilities: string[]; addAmbientCapabilities: string[] }
export interface LinuxContainerSecurityContext {
  capabilities: Capability | null;
  privileged: boolean;
  namespaceOptions: NamespaceOption | null;
  selinuxOptions: SELinuxOption | null;
  runAsUser: Int64Value | null;
  runAsUsername: string;
  readonlyRootfs: boolean;
  supplementalGroups: bigint[];
  apparmorProfile: string;
  seccompProfilePath: string;
  noNewPrivs: boolean;
  runAsGroup: Int64Value | null;
  maskedPaths: string[];
  readonlyPaths: string[];
  seccomp: SecurityProfile | null;
  apparmor: SecurityProfile | null;
  supplementalGroupsPolicy: SupplementalGroupsPolicy;
}
export interface ContainerMetadata { name: string; attempt: number }
export interface ContainerConfig {
  metadata: ContainerMetadata | null;
  image: ImageSpec | null;
  command: string[];
  args: string[];
  workingDir: string;
  envs: KeyValue[];
  mounts: Mount[];
  devices: Device[];
  labels: StringMap;
  annotations: StringMap;
  /** Relative to the sandbox's logDirectory. */
  logPath: string;
  stdin: boolean;
  stdinOnce: boolean;
  tty: boolean;
  linux: { resources: LinuxContainerResources | null; securityContext: LinuxContainerSecurityContext | null } | null;
}
export interface CreateContainerRequest { podSandboxId: string; config: ContainerConfig | null; sandboxConfig: PodSandboxConfig | null }
export interface CreateContainerResponse { containerId: string }
export interface ContainerIdRequest { containerId: string }
export interface StopContainerRequest { containerId: string; /** Seconds before the runtime kills; 0 kills at once. */ timeout: bigint }
export interface ContainerFilter { id: string; state: { state: ContainerState } | null; podSandboxId: string; labelSelector: StringMap }
export interface ListContainersRequest { filter: ContainerFilter | null }
export interface Container {
  id: string;
  podSandboxId: string;
  metadata: ContainerMetadata | null;
  image: ImageSpec | null;
  imageRef: string;
  state: ContainerState;
  createdAt: bigint;
  labels: StringMap;
  annotations: StringMap;
  imageId: string;
}
export interface ListContainersResponse { containers: Container[] }
export interface ContainerStatusRequest { containerId: string; verbose: boolean }
export interface ContainerStatus {
  id: string;
  metadata: ContainerMetadata | null;
  state: ContainerState;
  createdAt: bigint;
  startedAt: bigint;
  finishedAt: bigint;
  exitCode: number;
  image: ImageSpec | null;
  imageRef: string;
  reason: string;
  message: string;
  labels: StringMap;
  annotations: StringMap;
  mounts: Mount[];
  /** Absolute path of the container's CRI log file. */
  logPath: string;
  resources: { linux: LinuxContainerResources | null } | null;
  imageId: string;
  user: { linux: { uid: bigint; gid: bigint; supplementalGroups: bigint[] } | null } | null;
  imageSource: string;
}
export interface ContainerStatusResponse { status: ContainerStatus | null; info: StringMap }
export interface UpdateContainerResourcesRequest { containerId: string; linux: LinuxContainerResources | null; annotations: StringMap }

// ---- exec, attach, port-forward ----

export interface ExecSyncRequest { containerId: string; cmd: string[]; /** Seconds; 0 runs unbounded. */ timeout: bigint }
export interface ExecSyncResponse { stdout: Uint8Array; stderr: Uint8Array; exitCode: number }
export interface ExecRequest { containerId: string; cmd: string[]; tty: boolean; stdin: boolean; stdout: boolean; stderr: boolean }
export interface AttachRequest { containerId: string; stdin: boolean; tty: boolean; stdout: boolean; stderr: boolean }
export interface PortForwardRequest { podSandboxId: string; port: number[] }
/** The one-time URL of the runtime's streaming server for an exec, attach or port-forward. */
export interface StreamingUrlResponse { url: string }

// ---- stats ----

export interface FilesystemUsage { timestamp: bigint; fsId: { mountpoint: string } | null; usedBytes: UInt64Value | null; inodesUsed: UInt64Value | null }
export interface CpuUsage { timestamp: bigint; usageCoreNanoSeconds: UInt64Value | null; usageNanoCores: UInt64Value | null }
export interface MemoryUsage {
  timestamp: bigint;
  workingSetBytes: UInt64Value | null;
  availableBytes: UInt64Value | null;
  usageBytes: UInt64Value | null;
  rssBytes: UInt64Value | null;
  pageFaults: UInt64Value | null;
  majorPageFaults: UInt64Value | null;
}
export interface ContainerStats {
  attributes: { id: string; metadata: ContainerMetadata | null; labels: StringMap; annotations: StringMap } | null;
  cpu: CpuUsage | null;
  memory: MemoryUsage | null;
  writableLayer: FilesystemUsage | null;
  swap: { timestamp: bigint; swapAvailableBytes: UInt64Value | null; swapUsageBytes: UInt64Value | null } | null;
}
export interface ContainerStatsResponse { stats: ContainerStats | null }
export interface ListContainerStatsRequest { filter: { id: string; podSandboxId: string; labelSelector: StringMap } | null }
export interface ListContainerStatsResponse { stats: ContainerStats[] }

// ---- images ----

export interface Image {
  /** The config digest, `sha256:…`. */
  id: string;
  repoTags: string[];
  repoDigests: string[];
  size: bigint;
  uid: Int64Value | null;
  username: string;
  spec: ImageSpec | null;
  pinned: boolean;
  imageSource: string;
}
export interface ListImagesRequest { filter: { image: ImageSpec | null } | null }
export interface ListImagesResponse { images: Image[] }
export interface ImageStatusRequest { image: ImageSpec | null; verbose: boolean }
/** `image` is null when the runtime does not have it (not an error). */
export interface ImageStatusResponse { image: Image | null; info: StringMap }
export interface AuthConfig { username: string; password: string; auth: string; serverAddress: string; identityToken: string; registryToken: string }
export interface PullImageRequest { image: ImageSpec | null; auth: AuthConfig | null; sandboxConfig: PodSandboxConfig | null }
export interface PullImageResponse { imageRef: string }
export interface RemoveImageRequest { image: ImageSpec | null }
export interface ImageFsInfoResponse { imageFilesystems: FilesystemUsage[]; containerFilesystems: FilesystemUsage[] }
