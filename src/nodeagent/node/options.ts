/**
 * The node agent options node registration and heartbeats read. The names and types are those of
 * the parsed flags (`NodeAgentFlags` in src/cli), so the daemon passes its resolved values as they
 * are; tests write only the fields they care about on top of `nodeStatusDefaults`.
 */
export interface NodeStatusOptions {
  /** `--hostname-override`: the node's name instead of the hostname (lower-cased either way). */
  readonly hostnameOverride?: string | undefined;
  /** `--node-ip`: one IP or two of different families, comma-separated. */
  readonly nodeIp?: string | undefined;
  /** `--node-labels` (already checked against the allowed svc.io prefixes by the option rules). */
  readonly nodeLabels: Readonly<Record<string, string>>;
  /** `--provider-id`: spec.providerID. */
  readonly providerId?: string | undefined;
  /** `--register-node`: false leaves the Node to someone else; status and lease still run once it exists. */
  readonly registerNode: boolean;
  /** `--register-with-taints`: `key=value:effect` or `key:effect`. */
  readonly registerWithTaints: readonly string[];
  /** `--root-dir`: its filesystem is the node's ephemeral storage. */
  readonly rootDir: string;
  /** `--node-status-update-frequency`, in ms. */
  readonly nodeStatusUpdateFrequency: number;
  /** `--max-pods`. */
  readonly maxPods: number;
  /** `--pods-per-core`; 0 disables. */
  readonly podsPerCore: number;
  /** `--eviction-hard`: signal → quantity or percentage. Empty: the kubelet's defaults. */
  readonly evictionHard: Readonly<Record<string, string>>;
  /** `--eviction-pressure-transition-period`, in ms: how long a pressure condition outlives its cause. */
  readonly evictionPressureTransitionPeriod: number;
  /** `--experimental-allocatable-ignore-eviction`: hard thresholds do not lower allocatable. */
  readonly experimentalAllocatableIgnoreEviction: boolean;
  /** `--svc-reserved`: cpu, memory, pid, ephemeral-storage. */
  readonly svcReserved: Readonly<Record<string, string>>;
  /** `--system-reserved`: same. */
  readonly systemReserved: Readonly<Record<string, string>>;
  /** `--reserved-cpus`: supersedes the cpu entries of the two reservations. */
  readonly reservedCpus?: string | undefined;
  /** `--port`: status.daemonEndpoints.kubeletEndpoint.Port. */
  readonly port: number;
  /** `--event-qps`; 0 uses 5. */
  readonly eventQps: number;
  /** `--event-burst`; 0 uses 10. */
  readonly eventBurst: number;
}

/** The spec's defaults of every option above. */
export const nodeStatusDefaults: NodeStatusOptions = Object.freeze({
  nodeLabels: {},
  registerNode: true,
  registerWithTaints: [],
  rootDir: '/var/lib/nodeagent',
  nodeStatusUpdateFrequency: 10_000,
  maxPods: 110,
  podsPerCore: 0,
  evictionHard: {},
  evictionPressureTransitionPeriod: 300_000,
  experimentalAllocatableIgnoreEviction: false,
  svcReserved: {},
  systemReserved: {},
  port: 10250,
  eventQps: 50,
  eventBurst: 100,
});
