// The CPU manager (--cpu-manager-policy): with `static`, each container of a Guaranteed pod that
// requests a whole number of CPUs gets that many CPUs to itself, taken out of the shared pool all
// other containers run on; `none` leaves every container on every CPU. The assignments live in
// <root-dir>/cpu_manager_state, so a restarted agent keeps them.
import { podQosClass, quantityValue, type Container, type Pod } from '../../api/index.js';
import { smtAlignmentError } from './admission-errors.js';
import { CheckpointError } from './checkpoint-file.js';
import { readCpuManagerCheckpoint, writeCpuManagerCheckpoint, type CpuManagerState } from './cpu-manager-checkpoint.js';
import { cpuSetOf, difference, formatCpuSet, intersection, isSubset, sameCpus, union, type CpuSet } from './cpu-set.js';
import { takeByTopology, threadsPerCore } from './cpu-topology-take.js';
import { containersOf, type HintProvider } from './hint-provider.js';
import type { MachineTopology } from './machine-topology.js';
import { countOf, everyMask, hasNode, maskOf, type NumaMask } from './numa-mask.js';
import type { ProviderHints, TopologyHint } from './topology-hints.js';

export type CpuManagerPolicy = 'none' | 'static';

/** The static policy's options (--cpu-manager-policy-options) svc knows. */
export interface CpuPolicyOptions {
  /** full-pcpus-only: exclusive CPUs only as whole physical cores. */
  readonly fullPcpusOnly: boolean;
  /** strict-cpu-reservation: the reserved CPUs are not in the shared pool either. */
  readonly strictCpuReservation: boolean;
  /** distribute-cpus-across-cores: threads spread over cores rather than packed. */
  readonly distributeCpusAcrossCores: boolean;
  /** align-by-socket: a hint whose NUMA nodes fill whole sockets counts as preferred. */
  readonly alignBySocket: boolean;
}

export const NO_CPU_POLICY_OPTIONS: CpuPolicyOptions = { fullPcpusOnly: false, strictCpuReservation: false, distributeCpusAcrossCores: false, alignBySocket: false };

const KNOWN_OPTIONS: Record<string, keyof CpuPolicyOptions> = {
  'full-pcpus-only': 'fullPcpusOnly',
  'strict-cpu-reservation': 'strictCpuReservation',
  'distribute-cpus-across-cores': 'distributeCpusAcrossCores',
  'align-by-socket': 'alignBySocket',
};
/** Options upstream keeps behind CPUManagerPolicyAlphaOptions. */
const ALPHA_OPTIONS = new Set(['distribute-cpus-across-cores', 'align-by-socket', 'strict-cpu-reservation']);

/** Parses --cpu-manager-policy-options; throws an Error naming the option at fault. */
export function parseCpuPolicyOptions(raw: Readonly<Record<string, string>>, featureGates: Readonly<Record<string, boolean>> = {}): CpuPolicyOptions {
  const options: Record<keyof CpuPolicyOptions, boolean> = { ...NO_CPU_POLICY_OPTIONS };
  for (const [name, value] of Object.entries(raw)) {
    const key = KNOWN_OPTIONS[name];
    if (!key) throw new Error(`unsupported CPU manager policy option ${JSON.stringify(name)} (svc knows ${Object.keys(KNOWN_OPTIONS).join(', ')})`);
    if (ALPHA_OPTIONS.has(name) && featureGates['CPUManagerPolicyAlphaOptions'] !== true) throw new Error(`CPU manager policy option ${JSON.stringify(name)} needs the CPUManagerPolicyAlphaOptions feature gate`);
    if (featureGates['CPUManagerPolicyOptions'] === false) throw new Error('CPU manager policy options need the CPUManagerPolicyOptions feature gate');
    if (value !== 'true' && value !== 'false') throw new Error(`CPU manager policy option ${name}=${JSON.stringify(value)}: must be true or false`);
    options[key] = value === 'true';
  }
  if (options.fullPcpusOnly && options.distributeCpusAcrossCores) throw new Error('full-pcpus-only and distribute-cpus-across-cores exclude each other');
  return options;
}

/** The CPUs a container of a Guaranteed pod gets to itself: its CPU request when it is a whole number, else 0 (the shared pool). */
export function exclusiveCpuRequest(pod: Pod, container: Container): number {
  if (podQosClass(pod.spec) !== 'Guaranteed') return 0;
  const request = quantityValue(container.resources?.requests?.['cpu'] ?? container.resources?.limits?.['cpu']);
  return request !== undefined && Number.isInteger(request) && request > 0 ? request : 0;
}

/** A sidecar: an init container that keeps running beside the app containers (restartPolicy Always). */
const isSidecar = (container: Container): boolean => container.restartPolicy === 'Always';

/**
 * The whole pod's exclusive CPUs, as upstream counts them: sidecars hold theirs for the pod's life,
 * so they add to the app containers and to every init container started after them; a plain init
 * container's CPUs are free again once it exits.
 */
function podExclusiveCpus(pod: Pod): number {
  let sidecars = 0;
  let init = 0;
  for (const container of pod.spec.initContainers ?? []) {
    const cpus = exclusiveCpuRequest(pod, container);
    if (isSidecar(container)) sidecars += cpus;
    else init = Math.max(init, sidecars + cpus);
  }
  const app = pod.spec.containers.reduce((sum, c) => sum + exclusiveCpuRequest(pod, c), 0);
  return Math.max(init, app + sidecars);
}

export interface CpuManagerOptions {
  readonly machine: MachineTopology;
  readonly policy: CpuManagerPolicy;
  /** --reserved-cpus, or as many CPUs as --svc-reserved + --system-reserved cpu round up to. */
  readonly reserved: { readonly cpus: CpuSet } | { readonly count: number };
  readonly options?: CpuPolicyOptions | undefined;
  /** <root-dir>/cpu_manager_state. */
  readonly stateFile: string;
}

export class CpuManager implements HintProvider {
  readonly policy: CpuManagerPolicy;
  readonly reservedCpus: CpuSet;
  readonly allCpus: CpuSet;
  private readonly machine: MachineTopology;
  private readonly options: CpuPolicyOptions;
  private readonly state: CpuManagerState;
  private readonly stateFile: string;
  private readonly numaNodes: readonly number[];
  /** Exclusive allocations asked (containers of Guaranteed pods with whole CPUs) and those that failed: /metrics. */
  readonly pinning = { requests: 0, errors: 0 };
  /** CPUs a pod's init containers held, which its app containers may take again. */
  private readonly reusable = new Map<string, CpuSet>();

  /** Reads (or starts) the checkpoint and checks it against the machine. Throws a {@link CheckpointError} or an Error the agent refuses to start with. */
  constructor(options: CpuManagerOptions) {
    this.machine = options.machine;
    this.policy = options.policy;
    this.options = options.options ?? NO_CPU_POLICY_OPTIONS;
    this.stateFile = options.stateFile;
    this.allCpus = cpuSetOf(options.machine.cpus.map((c) => c.id));
    this.numaNodes = options.machine.numaNodes.map((n) => n.id);
    if (this.policy === 'static') {
      if ('cpus' in options.reserved) {
        if (!isSubset(options.reserved.cpus, this.allCpus)) throw new Error(`--reserved-cpus ${formatCpuSet(options.reserved.cpus)} names CPUs this machine does not have (${formatCpuSet(this.allCpus)})`);
        this.reservedCpus = options.reserved.cpus;
      } else {
        if (options.reserved.count <= 0) throw new Error('the static policy requires systemreserved.cpu + svcreserved.cpu (or --reserved-cpus) to be greater than zero');
        this.reservedCpus = takeByTopology(this.machine, this.allCpus, options.reserved.count);
      }
      if (this.reservedCpus.length === 0) throw new Error('the static policy requires systemreserved.cpu + svcreserved.cpu (or --reserved-cpus) to be greater than zero');
    } else {
      this.reservedCpus = [];
    }
    const saved = readCpuManagerCheckpoint(this.stateFile);
    if (saved && saved.policyName !== this.policy) {
      throw new CheckpointError(`configured policy ${JSON.stringify(this.policy)} differs from state checkpoint policy ${JSON.stringify(saved.policyName)}: drain the node and remove ${this.stateFile}`);
    }
    this.state = saved ?? { policyName: this.policy, defaultCpuSet: [], assignments: new Map() };
    if (this.policy === 'static') this.validateState();
    this.save();
  }

  /** upstream's validateState: a fresh state starts with every CPU shared; a saved one must still describe this machine. */
  private validateState(): void {
    const assigned = [...this.state.assignments.values()].flatMap((containers) => [...containers.values()].flat());
    if (this.state.defaultCpuSet.length === 0 && assigned.length === 0) {
      this.state.defaultCpuSet = this.allCpus;
      return;
    }
    const problem = (message: string) => new CheckpointError(`${this.stateFile}: ${message}: drain the node and remove the file`);
    if (!isSubset(this.reservedCpus, this.state.defaultCpuSet)) throw problem(`not all reserved cpus "${formatCpuSet(this.reservedCpus)}" are present in defaultCpuSet "${formatCpuSet(this.state.defaultCpuSet)}"`);
    const overlap = intersection(this.state.defaultCpuSet, assigned);
    if (overlap.length > 0) throw problem(`cpus "${formatCpuSet(overlap)}" are both assigned and in defaultCpuSet`);
    const known = union(this.state.defaultCpuSet, assigned);
    if (!sameCpus(known, this.allCpus)) throw problem(`current set of available CPUs "${formatCpuSet(this.allCpus)}" doesn't match with CPUs in state "${formatCpuSet(known)}"`);
  }

  private save(): void {
    writeCpuManagerCheckpoint(this.stateFile, this.state);
  }

  /** The CPUs exclusive allocations may take now. */
  availableCpus(): CpuSet {
    return difference(this.state.defaultCpuSet, this.reservedCpus);
  }

  /** The shared pool: where every container without exclusive CPUs runs. */
  sharedPool(): CpuSet {
    return this.options.strictCpuReservation ? this.availableCpus() : this.state.defaultCpuSet;
  }

  /** The container's exclusive CPUs, if it has any. */
  assignment(podUid: string, containerName: string): CpuSet | undefined {
    return this.state.assignments.get(podUid)?.get(containerName);
  }

  /** The cpuset a container runs on: its own CPUs, else the shared pool; undefined under `none` (every CPU). */
  cpusetOf(podUid: string, containerName: string): CpuSet | undefined {
    if (this.policy !== 'static') return undefined;
    return this.assignment(podUid, containerName) ?? this.sharedPool();
  }

  /** CPUs held by containers (each once). */
  exclusiveCpus(): CpuSet {
    return cpuSetOf([...this.state.assignments.values()].flatMap((containers) => [...containers.values()].flat()));
  }

  /** Pod UIDs that hold CPUs. */
  assignedPods(): string[] {
    return [...this.state.assignments.keys()];
  }

  private hintsFor(request: number, reusable: CpuSet): TopologyHint[] {
    const info = new Map(this.machine.cpus.map((c) => [c.id, c]));
    const available = this.availableCpus();
    let minWidth = this.numaNodes.length;
    const hints: { affinity: NumaMask; preferred: boolean }[] = [];
    const socketsOf = (mask: NumaMask) => new Set(this.machine.cpus.filter((c) => hasNode(mask, c.numaNode)).map((c) => c.socket));
    for (const mask of everyMask(this.numaNodes)) {
      const inMask = this.machine.cpus.filter((c) => hasNode(mask, c.numaNode)).length;
      if (inMask >= request && countOf(mask) < minWidth) minWidth = countOf(mask);
      const matching = union(available, reusable).filter((cpu) => hasNode(mask, info.get(cpu)?.numaNode ?? -1)).length;
      if (matching >= request) hints.push({ affinity: mask, preferred: false });
    }
    for (const hint of hints) {
      if (countOf(hint.affinity) === minWidth) hint.preferred = true;
      else if (this.options.alignBySocket) {
        // A set of NUMA nodes that is exactly the nodes of whole sockets.
        const sockets = socketsOf(hint.affinity);
        const nodesOfSockets = maskOf(this.machine.cpus.filter((c) => sockets.has(c.socket)).map((c) => c.numaNode));
        if (nodesOfSockets === hint.affinity && sockets.size === 1) hint.preferred = true;
      }
    }
    return hints;
  }

  private hintsOfAssigned(cpus: CpuSet, request: number): ProviderHints {
    if (cpus.length !== request) return { cpu: [] };
    const info = new Map(this.machine.cpus.map((c) => [c.id, c]));
    return { cpu: [{ affinity: maskOf(cpus.map((cpu) => info.get(cpu)!.numaNode)), preferred: true }] };
  }

  hints(pod: Pod, container: Container): ProviderHints {
    if (this.policy !== 'static') return undefined;
    const request = exclusiveCpuRequest(pod, container);
    if (request === 0) return undefined;
    const uid = pod.metadata.uid ?? '';
    const held = this.assignment(uid, container.name);
    if (held) return this.hintsOfAssigned(held, request);
    return { cpu: this.hintsFor(request, this.reusable.get(uid) ?? []) };
  }

  podHints(pod: Pod): ProviderHints {
    if (this.policy !== 'static') return undefined;
    const request = podExclusiveCpus(pod);
    if (request === 0) return undefined;
    const uid = pod.metadata.uid ?? '';
    const held = [...(this.state.assignments.get(uid)?.values() ?? [])].flat();
    if (held.length > 0) return this.hintsOfAssigned(cpuSetOf(held), request);
    return { cpu: this.hintsFor(request, []) };
  }

  allocate(pod: Pod, container: Container, hint: TopologyHint): void {
    if (this.policy !== 'static') return;
    const request = exclusiveCpuRequest(pod, container);
    const uid = pod.metadata.uid ?? '';
    if (request === 0 || this.assignment(uid, container.name)) return;
    this.pinning.requests++;
    try {
      this.allocateExclusive(pod, container, request, hint);
    } catch (error) {
      this.pinning.errors++;
      throw error;
    }
  }

  private allocateExclusive(pod: Pod, container: Container, request: number, hint: TopologyHint): void {
    const uid = pod.metadata.uid ?? '';
    const reusable = this.reusable.get(uid) ?? [];
    const pool = union(this.availableCpus(), reusable);
    if (this.options.fullPcpusOnly) {
      const perCore = threadsPerCore(this.machine);
      if (request % perCore !== 0) throw smtAlignmentError(`requested ${request} cpus not multiple cpus per core = ${perCore}`);
      const freeCores = new Set(this.machine.cpus.map((c) => c.core));
      for (const cpu of this.machine.cpus) if (!pool.includes(cpu.id)) freeCores.delete(cpu.core);
      if (freeCores.size * perCore < request) throw smtAlignmentError(`not enough free physical CPUs: available physical CPUs = ${freeCores.size * perCore}, requested CPUs = ${request}, CPUs per core = ${perCore}`);
    }
    const take = { fullCoresOnly: this.options.fullPcpusOnly, spreadAcrossCores: this.options.distributeCpusAcrossCores };
    // CPUs on the hint's NUMA nodes first, then any others.
    let chosen: CpuSet = [];
    if (hint.affinity !== undefined) {
      const aligned = pool.filter((cpu) => hasNode(hint.affinity!, this.machine.cpus.find((c) => c.id === cpu)?.numaNode ?? -1));
      chosen = takeByTopology(this.machine, aligned, Math.min(request, aligned.length), take);
    }
    chosen = union(chosen, takeByTopology(this.machine, difference(pool, chosen), request - chosen.length, take));
    const containers = this.state.assignments.get(uid) ?? new Map<string, CpuSet>();
    containers.set(container.name, chosen);
    this.state.assignments.set(uid, containers);
    this.state.defaultCpuSet = difference(this.state.defaultCpuSet, chosen);
    // A plain init container's CPUs go to the pod's later containers; a sidecar keeps its own.
    const isInit = (pod.spec.initContainers ?? []).some((c) => c.name === container.name && !isSidecar(c));
    this.reusable.set(uid, isInit ? union(reusable, chosen) : difference(reusable, chosen));
    this.save();
  }

  /** Gives a pod's CPUs back to the shared pool (those no other container still holds). */
  removePod(uid: string): void {
    const containers = this.state.assignments.get(uid);
    this.reusable.delete(uid);
    if (!containers) return;
    this.state.assignments.delete(uid);
    const stillHeld = [...this.state.assignments.values()].flatMap((c) => [...c.values()].flat());
    this.state.defaultCpuSet = union(this.state.defaultCpuSet, difference(cpuSetOf([...containers.values()].flat()), stillHeld));
    this.save();
  }

  /** Containers a pod no longer has give their CPUs back. */
  removeContainersNotIn(pod: Pod): void {
    const containers = this.state.assignments.get(pod.metadata.uid ?? '');
    if (!containers) return;
    const names = new Set(containersOf(pod).map((c) => c.name));
    const gone = [...containers.keys()].filter((name) => !names.has(name));
    if (gone.length === 0) return;
    for (const name of gone) {
      this.state.defaultCpuSet = union(this.state.defaultCpuSet, containers.get(name)!);
      containers.delete(name);
    }
    this.save();
  }
}
