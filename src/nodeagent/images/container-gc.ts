/**
 * Dead-container garbage collection, as the kubelet does it. Containers that are not running and
 * were created at least `--minimum-container-ttl-duration` ago are evictable. Per pod and
 * container name the newest `--maximum-dead-containers-per-container` are kept (1 by default:
 * what `kubectl logs --previous` reads); all of a pod that no longer exists go. Then, if
 * `--maximum-dead-containers` is not negative, the oldest beyond it go too (first by capping each
 * container's share, then globally). Sandboxes that are not ready and hold no container go when
 * their pod is gone or a newer sandbox of the pod exists. The log file of a removed container is
 * deleted with it.
 *
 * Only what svc created is touched: containers and sandboxes carry the `svc.io/pod.uid` label.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CriClient } from '../cri/index.js';
import { CONTAINER_NAME_LABEL, isCriError, GrpcStatus, POD_UID_LABEL } from '../cri/index.js';
import type * as T from '../cri/index.js';


export interface ContainerGcPolicy {
  /** Minimum age of a finished container before collection (ms); default 0. */
  readonly minimumAgeMs: number;
  /** Old instances kept per container; negative: no per-container limit. Default 1. */
  readonly maxPerPodContainer: number;
  /** Old containers kept on the node; negative disables the global limit. Default -1. */
  readonly maxContainers: number;
}

export const DEFAULT_CONTAINER_GC_POLICY: ContainerGcPolicy = { minimumAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 };

export interface ContainerGarbageCollectorOptions {
  readonly cri: Pick<CriClient, 'listContainers' | 'listPodSandbox' | 'containerStatus' | 'removeContainer' | 'removePodSandbox'>;
  readonly policy?: ContainerGcPolicy;
  /** Whether the pod with this UID still exists (the workers know). */
  readonly podExists: (uid: string) => boolean;
  /**
   * The pods' log root (`<namespace>_<name>_<uid>` directories). Given, the directory of a pod
   * that is gone and has no sandbox left is removed.
   */
  readonly podLogsDir?: string | undefined;
  readonly now?: () => number;
}

export interface ContainerGcResult {
  readonly removedContainers: readonly string[];
  readonly removedSandboxes: readonly string[];
  /** Pod log directories removed. */
  readonly removedLogDirs: readonly string[];
  /** Removals that failed (left for the next pass). */
  readonly errors: readonly string[];
}

interface Evictable {
  readonly id: string;
  readonly podUid: string;
  readonly name: string;
  readonly createdAt: number;
}

const NANOS_PER_MS = 1_000_000n;

/** Newest first within each key; the `keep` newest stay, the rest are returned. */
function beyond(groups: Map<string, Evictable[]>, keep: number): Evictable[] {
  const out: Evictable[] = [];
  for (const group of groups.values()) {
    group.sort((a, b) => b.createdAt - a.createdAt);
    out.push(...group.splice(keep));
  }
  return out;
}

export class ContainerGarbageCollector {
  readonly #o: ContainerGarbageCollectorOptions;
  readonly #policy: ContainerGcPolicy;
  readonly #now: () => number;
  #running: Promise<ContainerGcResult> | undefined;

  constructor(options: ContainerGarbageCollectorOptions) {
    this.#o = options;
    this.#policy = options.policy ?? DEFAULT_CONTAINER_GC_POLICY;
    this.#now = options.now ?? Date.now;
  }

  /**
   * One pass (concurrent calls share it). `allSourcesReady`: until every pod source has been
   * read, a pod missing from the workers may just not be known yet, so its containers are kept.
   */
  collect(allSourcesReady = true): Promise<ContainerGcResult> {
    this.#running ??= this.#collect(allSourcesReady).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #collect(allSourcesReady: boolean): Promise<ContainerGcResult> {
    const { cri, podExists } = this.#o;
    const policy = this.#policy;
    const now = this.#now();
    const errors: string[] = [];
    const removedContainers: string[] = [];
    const { containers } = await cri.listContainers({});
    const groups = new Map<string, Evictable[]>();
    const toRemove: Evictable[] = [];
    for (const c of containers) {
      const podUid = c.labels[POD_UID_LABEL];
      if (!podUid || c.state === 'CONTAINER_RUNNING') continue;
      const createdAt = Number(c.createdAt / NANOS_PER_MS);
      if (now - createdAt < policy.minimumAgeMs) continue;
      const entry: Evictable = { id: c.id, podUid, name: c.labels[CONTAINER_NAME_LABEL] ?? c.metadata?.name ?? '', createdAt };
      if (allSourcesReady && !podExists(podUid)) {
        toRemove.push(entry);
        continue;
      }
      const key = `${podUid}/${entry.name}`;
      const group = groups.get(key);
      if (group) group.push(entry);
      else groups.set(key, [entry]);
    }
    if (policy.maxPerPodContainer >= 0) toRemove.push(...beyond(groups, policy.maxPerPodContainer));
    if (policy.maxContainers >= 0) {
      let left = [...groups.values()].reduce((n, g) => n + g.length, 0);
      if (left > policy.maxContainers && groups.size > 0) {
        // Each container's fair share first, then the oldest on the node.
        const share = Math.max(1, Math.floor(policy.maxContainers / groups.size));
        const overShare = beyond(groups, share);
        toRemove.push(...overShare);
        left -= overShare.length;
        if (left > policy.maxContainers) {
          const rest = [...groups.values()].flat().sort((a, b) => a.createdAt - b.createdAt);
          toRemove.push(...rest.slice(0, left - policy.maxContainers));
        }
      }
    }
    for (const container of toRemove) {
      try {
        await this.#removeContainer(container.id);
        removedContainers.push(container.id);
      } catch (error) {
        errors.push(`container ${container.id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const { removed: removedSandboxes, remaining } = await this.#collectSandboxes(allSourcesReady, errors);
    const removedLogDirs = allSourcesReady ? await this.#collectLogDirs(remaining, errors) : [];
    return { removedContainers, removedSandboxes, removedLogDirs, errors };
  }

  async #removeContainer(id: string): Promise<void> {
    const { cri } = this.#o;
    const logPath = await cri.containerStatus({ containerId: id }).then(
      (s) => s.status?.logPath ?? '',
      () => '',
    );
    try {
      await cri.removeContainer({ containerId: id });
    } catch (error) {
      if (!isCriError(error, GrpcStatus.NOT_FOUND)) throw error;
    }
    // The runtime leaves the CRI log file behind; it is ours to delete.
    if (logPath) await rm(logPath, { force: true });
  }

  /** Pod log directories whose pod is gone and has no sandbox left (`remaining`: UIDs that still have one). */
  async #collectLogDirs(remaining: ReadonlySet<string>, errors: string[]): Promise<string[]> {
    const dir = this.#o.podLogsDir;
    if (!dir) return [];
    const names = await readdir(dir).catch(() => [] as string[]);
    const removed: string[] = [];
    for (const name of names) {
      const uid = name.slice(name.lastIndexOf('_') + 1);
      if (!name.includes('_') || !uid || remaining.has(uid) || this.#o.podExists(uid)) continue;
      const path = join(dir, name);
      try {
        await rm(path, { recursive: true, force: true });
        removed.push(path);
      } catch (error) {
        errors.push(`log directory ${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return removed;
  }

  async #collectSandboxes(allSourcesReady: boolean, errors: string[]): Promise<{ removed: string[]; remaining: Set<string> }> {
    const { cri, podExists } = this.#o;
    const [{ items: sandboxes }, { containers }] = await Promise.all([cri.listPodSandbox({}), cri.listContainers({})]);
    const withContainers = new Set(containers.map((c) => c.podSandboxId));
    const byPod = new Map<string, T.PodSandbox[]>();
    for (const sandbox of sandboxes) {
      const uid = sandbox.labels[POD_UID_LABEL];
      if (!uid) continue;
      const list = byPod.get(uid);
      if (list) list.push(sandbox);
      else byPod.set(uid, [sandbox]);
    }
    const removed: string[] = [];
    const remaining = new Set<string>();
    for (const [uid, list] of byPod) {
      const gone = allSourcesReady && !podExists(uid);
      remaining.add(uid);
      list.sort((a, b) => Number(b.createdAt - a.createdAt));
      // A live pod keeps its newest sandbox, ready or not: the worker may still need it.
      for (const sandbox of gone ? list : list.slice(1)) {
        if (sandbox.state === 'SANDBOX_READY' || withContainers.has(sandbox.id)) continue;
        try {
          await cri.removePodSandbox({ podSandboxId: sandbox.id });
          removed.push(sandbox.id);
        } catch (error) {
          errors.push(`sandbox ${sandbox.id}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      if (gone && list.every((sandbox) => removed.includes(sandbox.id))) remaining.delete(uid);
    }
    return { removed, remaining };
  }
}
