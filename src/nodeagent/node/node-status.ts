import type { Node, NodeStatus } from '../../api/index.js';
import { nodeResources } from './capacity.js';
import { NodeConditions, observedPressures, type NodeCondition } from './conditions.js';
import type { PressureSignal, Threshold } from './eviction-thresholds.js';
import type { HostInfo } from './host.js';
import type { NodeAddress } from './addresses.js';
import type { NodeStatusOptions } from './options.js';
import type { RuntimeInfo, RuntimeVersion } from './runtime-info.js';

/** The parts of the status this agent owns, as it writes them. */
export interface OwnedStatus {
  readonly capacity: Readonly<Record<string, string>>;
  readonly allocatable: Readonly<Record<string, string>>;
  readonly conditions: readonly NodeCondition[];
  readonly addresses: readonly NodeAddress[];
  readonly daemonEndpoints: { readonly kubeletEndpoint: { readonly Port: number } };
  readonly nodeInfo: Readonly<Record<string, string>>;
  /** Largest first, capped by --node-status-max-images (src/nodeagent/images `nodeImagesReader`). */
  readonly images?: readonly { readonly names: readonly string[]; readonly sizeBytes: number }[];
}

export interface StatusSourceOptions {
  readonly options: NodeStatusOptions;
  readonly host: HostInfo;
  readonly runtime: RuntimeInfo;
  readonly thresholds: ReadonlyMap<PressureSignal, Threshold>;
  readonly addresses: readonly NodeAddress[];
  /** nodeInfo.kubeletVersion: the version the agent reports. */
  readonly version: string;
  /** The Node as registered: its conditions keep their transition times across restarts. */
  readonly node: Node;
  /** status.images; left out of the status when not given. */
  readonly images?: (() => Promise<OwnedStatus['images']>) | undefined;
  /** The eviction manager's pressures (all thresholds, soft ones too); without it, the hard thresholds against the host. */
  readonly pressures?: (() => ReadonlySet<'MemoryPressure' | 'DiskPressure' | 'PIDPressure'>) | undefined;
}

/**
 * Reads the node's status from the host and the runtime, one snapshot per `read(now)`. The
 * runtime's version is kept from the last call that answered, so a runtime that is down still
 * yields a status (Ready=False) rather than none.
 */
export class StatusSource {
  readonly #s: StatusSourceOptions;
  readonly #conditions: NodeConditions;
  #runtimeVersion: RuntimeVersion | undefined;

  constructor(s: StatusSourceOptions) {
    this.#s = s;
    const previous = (s.node.status?.conditions ?? []) as unknown as NodeCondition[];
    this.#conditions = new NodeConditions(s.options.evictionPressureTransitionPeriod, previous);
  }

  async read(now: number): Promise<OwnedStatus> {
    const { options, host, runtime, thresholds } = this.#s;
    const readiness = await runtime.readiness();
    try {
      this.#runtimeVersion = await runtime.version();
    } catch {
      // Keep the last version the runtime gave; readiness already says it is unwell.
    }
    const resources = nodeResources(options, host, thresholds);
    const system = host.system();
    const rv = this.#runtimeVersion;
    const version = `v${this.#s.version.replace(/^v/, '')}`;
    const images = await this.#s.images?.();
    return {
      capacity: resources.capacity,
      allocatable: resources.allocatable,
      conditions: this.#conditions.next(now, readiness, this.#s.pressures ? new Set(this.#s.pressures()) : observedPressures(host, options.rootDir, thresholds)),
      addresses: this.#s.addresses,
      daemonEndpoints: { kubeletEndpoint: { Port: options.port } },
      nodeInfo: {
        machineID: system.machineID,
        systemUUID: system.systemUUID,
        bootID: system.bootID,
        kernelVersion: system.kernelVersion,
        osImage: system.osImage,
        containerRuntimeVersion: rv ? `${rv.runtimeName}://${rv.runtimeVersion}` : '',
        kubeletVersion: version,
        // There is no kube-proxy: the agent's version, as kubelets before 1.31 reported here.
        kubeProxyVersion: version,
        operatingSystem: host.os,
        architecture: host.arch,
      },
      ...(images ? { images } : {}),
    };
  }
}

/** The status with heartbeat times left out: two statuses that compare equal need no write. */
export function statusFingerprint(status: OwnedStatus | NodeStatus): string {
  const conditions = (status.conditions ?? []).map((c) => ({ ...c, lastHeartbeatTime: undefined }));
  return JSON.stringify({ ...status, conditions });
}
