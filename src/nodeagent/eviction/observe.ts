import { statfs } from 'node:fs/promises';
import type { CriClient } from '../cri/index.js';
import { CONTAINER_NAME_LABEL, POD_UID_LABEL } from '../cri/index.js';
import type { HostInfo } from '../node/index.js';
import type { Observations, SignalObservation } from './eviction-state.js';
import type { EvictionSignal } from './eviction-thresholds.js';
import type { PodUsage } from './pod-ranking.js';

/** One housekeeping pass's view: the node's signals and each pod's usage by UID. */
export interface EvictionObservation {
  readonly signals: Observations;
  readonly usage: ReadonlyMap<string, PodUsage>;
}

async function filesystem(path: string): Promise<{ bytes: SignalObservation; inodes: SignalObservation } | undefined> {
  const fs = await statfs(path).catch(() => undefined);
  if (!fs) return undefined;
  // bavail: what a pod (an unprivileged writer) can still use, as cAdvisor reports it.
  return { bytes: { available: fs.bavail * fs.bsize, capacity: fs.blocks * fs.bsize }, inodes: { available: fs.ffree, capacity: fs.files } };
}

type ContainerUsage = { name: string; memoryBytes?: number; diskBytes?: number; inodes?: number };

/**
 * Reads the signals as the kubelet's summary provider gives them, from what this agent has:
 * memory.available — the host's MemAvailable (total minus the working set); nodefs — statfs of
 * the root dir; imagefs — statfs of the runtime's image filesystem (the root dir's when the
 * runtime does not say); pid.available — pid_max minus the threads that exist. Pod usage is the
 * sum of the runtime's container stats (working set, writable layer).
 */
export async function observeEviction(o: { cri: CriClient; host: HostInfo; rootDir: string }): Promise<EvictionObservation> {
  const signals = new Map<EvictionSignal, SignalObservation>();
  const memory = o.host.memory();
  signals.set('memory.available', { available: memory.availableBytes, capacity: memory.totalBytes });
  const [nodefs, imageInfo, stats] = await Promise.all([
    filesystem(o.rootDir),
    o.cri.imageFsInfo().catch(() => undefined),
    o.cri.listContainerStats({}).catch(() => ({ stats: [] })),
  ]);
  if (nodefs) {
    signals.set('nodefs.available', nodefs.bytes);
    signals.set('nodefs.inodesFree', nodefs.inodes);
  }
  const imageMount = imageInfo?.imageFilesystems[0]?.fsId?.mountpoint;
  const imagefs = imageMount ? ((await filesystem(imageMount)) ?? nodefs) : nodefs;
  if (imagefs) {
    signals.set('imagefs.available', imagefs.bytes);
    signals.set('imagefs.inodesFree', imagefs.inodes);
  }
  const pids = o.host.pids();
  signals.set('pid.available', { available: pids.max - pids.running, capacity: pids.max });

  const byPod = new Map<string, ContainerUsage[]>();
  for (const s of stats.stats) {
    const uid = s.attributes?.labels[POD_UID_LABEL];
    if (!uid) continue;
    const list = byPod.get(uid) ?? [];
    const number = (v: { value: bigint | number } | null | undefined) => (v ? Number(v.value) : undefined);
    list.push({
      name: s.attributes?.labels[CONTAINER_NAME_LABEL] ?? s.attributes?.metadata?.name ?? '',
      memoryBytes: number(s.memory?.workingSetBytes),
      diskBytes: number(s.writableLayer?.usedBytes),
      inodes: number(s.writableLayer?.inodesUsed),
    });
    byPod.set(uid, list);
  }
  const usage = new Map<string, PodUsage>();
  const total = (list: ContainerUsage[], key: 'memoryBytes' | 'diskBytes' | 'inodes') =>
    list.some((c) => c[key] !== undefined) ? list.reduce((sum, c) => sum + (c[key] ?? 0), 0) : undefined;
  for (const [uid, list] of byPod) {
    usage.set(uid, { memoryBytes: total(list, 'memoryBytes'), diskBytes: total(list, 'diskBytes'), inodes: total(list, 'inodes'), containers: list });
  }
  return { signals, usage };
}
