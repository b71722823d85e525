/**
 * The kubelet's QoS cgroups and `--qos-reserved` (feature gate QOSReserved): pods run under
 * `<cgroup-root>/kubepods` — Guaranteed ones directly (`kubepods/pod<uid>`), the others in
 * `kubepods/burstable` and `kubepods/besteffort` — and the memory limits of those two keep a share
 * of the memory higher classes requested out of reach of the lower ones:
 *
 *   burstable limit  = allocatable − reserve% × (the Guaranteed pods' memory requests)
 *   besteffort limit = burstable limit − reserve% × (the Burstable pods' memory requests)
 *
 * written as memory.limit_in_bytes (cgroup v1) or memory.max (v2), as upstream's QoS container
 * manager writes its `Memory` parameter. When a class already uses more than its new limit (v1
 * refuses the write), the limit is set to the usage instead, so the class cannot grow, as upstream
 * retries. The limits follow the pods: recomputed before each new pod's sandbox is made, and on a
 * period (the kubelet's minute) for pods that went. The CPU weights are the QoS manager's too:
 * burstable gets the shares of its pods' CPU requests, besteffort the minimum (2), so a BestEffort
 * pod under the hierarchy competes as it would on its own.
 */
import { milliValue, podQosClass, quantityValue, type Pod, type QosClass } from '../../api/index.js';
import type { FileLog } from '../log/index.js';
import { hostCgroups, type CgroupFiles } from './cgroup-files.js';

/** The kubelet's period of QoS cgroup updates. */
export const QOS_UPDATE_INTERVAL_MS = 60_000;
const KUBEPODS = 'kubepods';

/** A pod's memory request as the scheduler counts it: its containers' sum or its largest init container, a limit standing for a missing request. */
export function podMemoryRequest(pod: Pod): number {
  const of = (c: { resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } }) =>
    quantityValue(c.resources?.requests?.['memory'] ?? c.resources?.limits?.['memory']) ?? 0;
  const main = pod.spec.containers.reduce((sum, c) => sum + of(c), 0);
  const init = (pod.spec.initContainers ?? []).reduce((max, c) => Math.max(max, of(c)), 0);
  return Math.max(main, init) + (quantityValue(pod.spec.overhead?.['memory']) ?? 0);
}

/** The kubelet's CPU shares of a CPU request in millicores: 1024 a CPU, between 2 and 262144. */
export const MIN_CPU_SHARES = 2;
const MAX_CPU_SHARES = 262_144;
export function milliCpuToShares(milli: number): number {
  if (milli <= 0) return MIN_CPU_SHARES;
  return Math.min(MAX_CPU_SHARES, Math.max(MIN_CPU_SHARES, Math.floor((milli * 1024) / 1000)));
}

/** The Burstable pods' CPU requests, in millicores (as a pod's memory request: sum or largest init container, plus overhead). */
export function burstableCpuMillis(pods: readonly Pod[]): number {
  const of = (c: { resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } }) =>
    milliValue(c.resources?.requests?.['cpu'] ?? c.resources?.limits?.['cpu']);
  let total = 0;
  for (const pod of pods) {
    if (podQosClass(pod.spec) !== 'Burstable') continue;
    const main = pod.spec.containers.reduce((sum, c) => sum + of(c), 0);
    const init = (pod.spec.initContainers ?? []).reduce((max, c) => Math.max(max, of(c)), 0);
    total += Math.max(main, init) + milliValue(pod.spec.overhead?.['cpu']);
  }
  return total;
}

export interface QosMemoryLimits {
  readonly burstable: number;
  readonly besteffort: number;
}

/** The two limits for `pods` on a node with `allocatableBytes`, reserving `percent` of the higher classes' requests. */
export function qosMemoryLimits(pods: readonly Pod[], allocatableBytes: number, percent: number): QosMemoryLimits {
  const requests: Record<QosClass, number> = { Guaranteed: 0, Burstable: 0, BestEffort: 0 };
  for (const pod of pods) requests[podQosClass(pod.spec)] += podMemoryRequest(pod);
  // Integer arithmetic as upstream's int64: the reserve rounds down.
  const burstable = allocatableBytes - Math.floor((requests.Guaranteed * percent) / 100);
  const besteffort = burstable - Math.floor((requests.Burstable * percent) / 100);
  return { burstable, besteffort };
}

/** The cgroup names (cgroupfs driver) of the QoS hierarchy under `cgroupRoot`. */
export function qosCgroupNames(cgroupRoot: string): { readonly kubepods: string; readonly burstable: string; readonly besteffort: string } {
  const root = `/${cgroupRoot.split('/').filter(Boolean).join('/')}`;
  const kubepods = `${root === '/' ? '' : root}/${KUBEPODS}`;
  return { kubepods, burstable: `${kubepods}/burstable`, besteffort: `${kubepods}/besteffort` };
}

export interface QosCgroupManagerOptions {
  /** `--cgroup-root` ('' or '/' for the hierarchy's root). */
  readonly cgroupRoot: string;
  /** `--qos-reserved=memory=<percent>%`. */
  readonly memoryReservePercent: number;
  readonly allocatableMemoryBytes: number;
  /** The pods the agent runs (ended ones need no reserve). */
  readonly activePods: () => readonly Pod[];
  readonly cgroups?: CgroupFiles;
  readonly intervalMs?: number;
  /** Limits written, at -v 2 as upstream logs them. */
  readonly log?: FileLog | undefined;
  readonly onError?: (error: Error) => void;
}

export class QosCgroupManager {
  readonly #o: QosCgroupManagerOptions;
  readonly #cgroups: CgroupFiles;
  readonly #names: ReturnType<typeof qosCgroupNames>;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** The pods the limits were last computed with: a pod not among them updates them first. */
  #counted = new Set<string>();

  constructor(options: QosCgroupManagerOptions) {
    this.#o = options;
    this.#cgroups = options.cgroups ?? hostCgroups();
    this.#names = qosCgroupNames(options.cgroupRoot);
  }

  /** Makes the QoS cgroups, writes the limits, and keeps them current. */
  start(): void {
    for (const name of [this.#names.kubepods, this.#names.burstable, this.#names.besteffort]) this.#cgroups.ensure(name);
    this.update();
    this.#timer = setInterval(() => this.update(), this.#o.intervalMs ?? QOS_UPDATE_INTERVAL_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /**
   * The cgroup parent of a pod's sandbox; the limits are updated first with the pod counted, so a
   * new Guaranteed pod's reserve holds before it starts (the kubelet updates them as it makes the
   * pod's cgroup).
   */
  parentOf(pod: Pod): string {
    const uid = pod.metadata.uid ?? '';
    if (!this.#counted.has(uid)) this.update(this.#o.activePods().some((p) => p.metadata.uid === uid) ? [] : [pod]);
    const qos = podQosClass(pod.spec);
    const parent = qos === 'Guaranteed' ? this.#names.kubepods : qos === 'Burstable' ? this.#names.burstable : this.#names.besteffort;
    return `${parent}/pod${uid}`;
  }

  /** Recomputes and writes the limits; returns what was written. */
  update(extra: readonly Pod[] = []): QosMemoryLimits | undefined {
    try {
      const pods = [...this.#o.activePods(), ...extra];
      this.#counted = new Set(pods.map((p) => p.metadata.uid ?? ''));
      const limits = qosMemoryLimits(pods, this.#o.allocatableMemoryBytes, this.#o.memoryReservePercent);
      const written = { burstable: this.#write(this.#names.burstable, limits.burstable), besteffort: this.#write(this.#names.besteffort, limits.besteffort) };
      this.#o.log?.info(2, `QoS memory limits: burstable ${written.burstable}, besteffort ${written.besteffort} (reserve ${this.#o.memoryReservePercent}%)`);
      // The weights after the limits: a host without the cpu controller still gets the reserve.
      try {
        this.#cgroups.setCpuShares(this.#names.burstable, milliCpuToShares(burstableCpuMillis(pods)));
        this.#cgroups.setCpuShares(this.#names.besteffort, MIN_CPU_SHARES);
      } catch (error) {
        this.#o.onError?.(error as Error);
      }
      return written;
    } catch (error) {
      this.#o.onError?.(error as Error);
      return undefined;
    }
  }

  #write(name: string, bytes: number): number {
    const limit = Math.max(0, bytes);
    try {
      this.#cgroups.setMemoryLimit(name, limit);
      return limit;
    } catch (error) {
      // Usage above the new limit: hold the class where it is.
      const usage = this.#cgroups.memoryUsage(name);
      if (usage <= limit) throw error;
      this.#cgroups.setMemoryLimit(name, usage);
      return usage;
    }
  }
}
