import type { Node } from '../../src/api/index.js';
import { WILDCARD_IP, type HostPort, type PodInfo } from './pod-info.js';
import { allocatableOf, PODS } from './resources.js';
import { effectiveTaints, type TaintLike } from '../node-matching/index.js';

/**
 * One node and what is bound (or assumed) on it, kept up to date incrementally: adding or removing
 * a pod adjusts the sums, so a filter reads them in O(resources), never by walking the pods.
 */
export class NodeInfo {
  #node: Node | undefined;
  #allocatable: ReadonlyMap<string, number> = new Map();
  #taints: readonly TaintLike[] = [];
  #maxPods = 0;
  readonly #pods = new Map<string, PodInfo>();
  readonly #requested = new Map<string, number>();
  /** `protocol/port` → host IPs using it, with how many pods use each. */
  readonly #ports = new Map<string, Map<string, number>>();
  #nonZeroCpu = 0;
  #nonZeroMemory = 0;
  /** Bumped on every change: lets a caller tell whether anything moved since it looked. */
  generation = 0;

  constructor(readonly name: string) {}

  /** Undefined while only pods name this node (their Node not seen yet, or deleted). */
  get node(): Node | undefined {
    return this.#node;
  }

  setNode(node: Node | undefined): void {
    this.#node = node;
    this.#allocatable = allocatableOf(node?.status);
    this.#taints = node ? effectiveTaints(node) : [];
    this.#maxPods = Math.floor((this.#allocatable.get(PODS) ?? 0) / 1000);
    this.generation++;
  }

  get allocatable(): ReadonlyMap<string, number> {
    return this.#allocatable;
  }

  /** The sum of the requests of the pods here, by resource (milli-units). */
  get requested(): ReadonlyMap<string, number> {
    return this.#requested;
  }

  get nonZeroRequested(): { readonly cpu: number; readonly memory: number } {
    return { cpu: this.#nonZeroCpu, memory: this.#nonZeroMemory };
  }

  get podCount(): number {
    return this.#pods.size;
  }

  /** How many pods the node takes (its allocatable `pods`, in whole pods). */
  get maxPods(): number {
    return this.#maxPods;
  }

  /** The node's taints plus the not-ready / unreachable taint its Ready condition implies (see `effectiveTaints`). */
  get taints(): readonly TaintLike[] {
    return this.#taints;
  }

  get pods(): ReadonlyMap<string, PodInfo> {
    return this.#pods;
  }

  hasPod(key: string): boolean {
    return this.#pods.has(key);
  }

  addPod(info: PodInfo): void {
    if (this.#pods.has(info.key)) this.removePod(info.key);
    this.#pods.set(info.key, info);
    for (const [name, amount] of info.requests) this.#requested.set(name, (this.#requested.get(name) ?? 0) + amount);
    this.#nonZeroCpu += info.nonZero.cpu;
    this.#nonZeroMemory += info.nonZero.memory;
    for (const port of info.hostPorts) {
      const key = `${port.protocol}/${port.port}`;
      const ips = this.#ports.get(key) ?? new Map<string, number>();
      ips.set(port.ip, (ips.get(port.ip) ?? 0) + 1);
      this.#ports.set(key, ips);
    }
    this.generation++;
  }

  removePod(key: string): PodInfo | undefined {
    const info = this.#pods.get(key);
    if (!info) return undefined;
    this.#pods.delete(key);
    for (const [name, amount] of info.requests) {
      const left = (this.#requested.get(name) ?? 0) - amount;
      if (left <= 0) this.#requested.delete(name);
      else this.#requested.set(name, left);
    }
    this.#nonZeroCpu -= info.nonZero.cpu;
    this.#nonZeroMemory -= info.nonZero.memory;
    for (const port of info.hostPorts) {
      const key = `${port.protocol}/${port.port}`;
      const ips = this.#ports.get(key);
      if (!ips) continue;
      const n = (ips.get(port.ip) ?? 0) - 1;
      if (n <= 0) ips.delete(port.ip);
      else ips.set(port.ip, n);
      if (ips.size === 0) this.#ports.delete(key);
    }
    this.generation++;
    return info;
  }

  /**
   * Whether a pod asking for `port` would clash with a pod here: same protocol and port, and the
   * same host IP or either side on the wildcard 0.0.0.0 (as kube-scheduler's NodePorts plugin).
   */
  portConflicts(port: HostPort): boolean {
    const ips = this.#ports.get(`${port.protocol}/${port.port}`);
    if (!ips) return false;
    if (port.ip === WILDCARD_IP) return ips.size > 0;
    return ips.has(port.ip) || ips.has(WILDCARD_IP);
  }
}
