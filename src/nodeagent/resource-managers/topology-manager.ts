// The topology manager (--topology-manager-policy, --topology-manager-scope): at a pod's
// admission it asks every hint provider (the CPU and memory managers) where the pod's containers
// could live, merges their hints by policy, refuses the pod (TopologyAffinityError) when the
// policy says so, and otherwise lets each provider allocate within the merged hint.
import type { Pod } from '../../api/index.js';
import { admitResultOf, topologyAffinityError, type AdmitResult } from './admission-errors.js';
import { containersOf, type HintProvider } from './hint-provider.js';
import type { MachineTopology } from './machine-topology.js';
import { decide, type MergeOptions, type TopologyHint, type TopologyPolicyName } from './topology-hints.js';

export type TopologyScope = 'container' | 'pod';

export interface TopologyPolicyOptions {
  /** prefer-closest-numa-nodes. */
  readonly preferClosestNuma: boolean;
  /** max-allowable-numa-nodes (8 unless set). */
  readonly maxAllowableNumaNodes: number;
}

/** Parses --topology-manager-policy-options; throws an Error naming the option at fault. */
export function parseTopologyPolicyOptions(raw: Readonly<Record<string, string>>, featureGates: Readonly<Record<string, boolean>> = {}): TopologyPolicyOptions {
  let preferClosestNuma = false;
  let maxAllowableNumaNodes = 8;
  for (const [name, value] of Object.entries(raw)) {
    if (featureGates['TopologyManagerPolicyOptions'] === false) throw new Error('topology manager policy options need the TopologyManagerPolicyOptions feature gate');
    if (name === 'prefer-closest-numa-nodes') {
      if (value !== 'true' && value !== 'false') throw new Error(`topology manager policy option prefer-closest-numa-nodes=${JSON.stringify(value)}: must be true or false`);
      preferClosestNuma = value === 'true';
    } else if (name === 'max-allowable-numa-nodes') {
      if (!/^\d+$/.test(value) || Number(value) < 8) throw new Error(`topology manager policy option max-allowable-numa-nodes=${JSON.stringify(value)}: must be a whole number of at least 8`);
      maxAllowableNumaNodes = Math.min(30, Number(value));
    } else {
      throw new Error(`unsupported topology manager policy option ${JSON.stringify(name)} (svc knows prefer-closest-numa-nodes, max-allowable-numa-nodes)`);
    }
  }
  return { preferClosestNuma, maxAllowableNumaNodes };
}

export interface TopologyManagerOptions {
  readonly machine: MachineTopology;
  readonly policy: TopologyPolicyName;
  readonly scope: TopologyScope;
  readonly options?: TopologyPolicyOptions | undefined;
  readonly providers: readonly HintProvider[];
}

export class TopologyManager {
  readonly policy: TopologyPolicyName;
  readonly scope: TopologyScope;
  private readonly providers: readonly HintProvider[];
  private readonly merge: MergeOptions;
  /** Pods admitted or refused, and the refusals: /metrics. */
  readonly admissions = { requests: 0, errors: 0 };
  /** The hint each admitted container was given, by pod UID then container name. */
  private readonly affinities = new Map<string, Map<string, TopologyHint>>();

  constructor(options: TopologyManagerOptions) {
    this.policy = options.policy;
    this.scope = options.scope;
    this.providers = options.providers;
    const numaNodes = options.machine.numaNodes.map((n) => n.id);
    const max = options.options?.maxAllowableNumaNodes ?? 8;
    if (this.policy !== 'none' && numaNodes.length > max) {
      throw new Error(`the topology manager is unsupported on machines with more than ${max} NUMA nodes (this one has ${numaNodes.length}; see max-allowable-numa-nodes)`);
    }
    this.merge = {
      numaNodes,
      preferClosestNuma: options.options?.preferClosestNuma ?? false,
      distances: new Map(options.machine.numaNodes.map((n) => [n.id, n.distances])),
    };
  }

  /**
   * Admits a pod or says why not: per container (scope `container`) or once for the pod (scope
   * `pod`), hints from every provider merged by the policy, then each provider's allocation within
   * the merged hint. A refused pod keeps nothing.
   */
  admit(pod: Pod): AdmitResult {
    const uid = pod.metadata.uid ?? '';
    const given = new Map<string, TopologyHint>();
    this.admissions.requests++;
    try {
      let podHint: TopologyHint | undefined;
      if (this.scope === 'pod') {
        const decision = decide(this.policy, this.providers.map((p) => p.podHints(pod)), this.merge);
        if (!decision.admit) throw topologyAffinityError();
        podHint = decision.hint;
      }
      for (const container of containersOf(pod)) {
        let hint = podHint;
        if (!hint) {
          const decision = decide(this.policy, this.providers.map((p) => p.hints(pod, container)), this.merge);
          if (!decision.admit) throw topologyAffinityError();
          hint = decision.hint;
        }
        given.set(container.name, hint);
        for (const provider of this.providers) provider.allocate(pod, container, hint);
      }
    } catch (error) {
      this.removePod(uid);
      this.admissions.errors++;
      return admitResultOf(error);
    }
    this.affinities.set(uid, given);
    return { admit: true };
  }

  /** The hint a container was admitted with. */
  affinity(podUid: string, containerName: string): TopologyHint | undefined {
    return this.affinities.get(podUid)?.get(containerName);
  }

  removePod(uid: string): void {
    this.affinities.delete(uid);
    for (const provider of this.providers) provider.removePod(uid);
  }
}
