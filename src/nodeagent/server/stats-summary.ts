import { readFile, statfs } from 'node:fs/promises';
import { cpus, freemem, totalmem } from 'node:os';
import type { Pod } from '../../api/index.js';
import type { CriClient } from '../cri/index.js';
import type { ContainerStats, UInt64Value } from '../cri/types.js';
import { POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from '../cri/index.js';

/**
 * `/stats/summary`: the Summary API's shape (node, then pods with their containers), filled from
 * what this agent can read without cAdvisor — the host (/proc through `os`, statfs of the root
 * dir), the runtime's ListContainerStats and ImageFsInfo, and the pods the agent runs. Fields it
 * has no source for (network, per-pod volumes, ephemeral-storage) are left out rather than zeroed.
 */
export interface StatsSummary {
  readonly node: Record<string, unknown>;
  readonly pods: Record<string, unknown>[];
}

const startTime = new Date().toISOString();
const value = (v: UInt64Value | null | undefined) => (v ? Number(v.value) : undefined);
const isoOf = (nanos: bigint) => new Date(Number(nanos / 1_000_000n)).toISOString();

function containerStats(s: ContainerStats) {
  const time = isoOf(s.cpu?.timestamp ?? s.memory?.timestamp ?? BigInt(Date.now()) * 1_000_000n);
  return {
    name: s.attributes?.metadata?.name ?? '',
    startTime: time,
    cpu: { time, usageNanoCores: value(s.cpu?.usageNanoCores), usageCoreNanoSeconds: value(s.cpu?.usageCoreNanoSeconds) },
    memory: {
      time,
      workingSetBytes: value(s.memory?.workingSetBytes),
      usageBytes: value(s.memory?.usageBytes),
      rssBytes: value(s.memory?.rssBytes),
      availableBytes: value(s.memory?.availableBytes),
      pageFaults: value(s.memory?.pageFaults),
      majorPageFaults: value(s.memory?.majorPageFaults),
    },
    rootfs: { time, usedBytes: value(s.writableLayer?.usedBytes), inodesUsed: value(s.writableLayer?.inodesUsed) },
  };
}

/**
 * The host's memory in use without reclaimable cache (MemTotal − MemAvailable from /proc/meminfo),
 * nearer the cgroup working set upstream reports than total − free, which counts the page cache;
 * undefined where /proc/meminfo cannot be read.
 */
async function hostWorkingSet(): Promise<number | undefined> {
  const text = await readFile('/proc/meminfo', 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const kib = (key: string) => {
    const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
    return match ? Number(match[1]) * 1024 : undefined;
  };
  const total = kib('MemTotal');
  const available = kib('MemAvailable');
  return total !== undefined && available !== undefined ? total - available : undefined;
}

const sum = (values: (number | undefined)[]) => values.reduce<number>((a, b) => a + (b ?? 0), 0);

export async function statsSummary(options: { cri: CriClient; nodeName: string; rootDir: string; pods: readonly Pod[] }): Promise<StatsSummary> {
  const time = new Date().toISOString();
  const [fs, imageFs, { stats }, workingSet] = await Promise.all([
    statfs(options.rootDir).catch(() => undefined),
    options.cri.imageFsInfo().catch(() => undefined),
    options.cri.listContainerStats({}),
    hostWorkingSet(),
  ]);
  const cpuTimes = cpus().reduce((a, c) => a + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0);
  const total = totalmem();
  const free = freemem();
  const image = imageFs?.imageFilesystems[0];
  const node = {
    nodeName: options.nodeName,
    startTime,
    cpu: { time, usageCoreNanoSeconds: cpuTimes * 1_000_000 },
    memory: { time, availableBytes: free, usageBytes: total - free, workingSetBytes: workingSet ?? total - free },
    fs: fs && {
      time,
      availableBytes: fs.bavail * fs.bsize,
      capacityBytes: fs.blocks * fs.bsize,
      usedBytes: (fs.blocks - fs.bfree) * fs.bsize,
      inodesFree: fs.ffree,
      inodes: fs.files,
      inodesUsed: fs.files - fs.ffree,
    },
    runtime: image ? { imageFs: { time, usedBytes: value(image.usedBytes), inodesUsed: value(image.inodesUsed) } } : undefined,
  };

  // Containers grouped by their pod's UID label; a pod the agent knows gets its references from the object.
  const byUid = new Map<string, ContainerStats[]>();
  for (const s of stats) {
    const uid = s.attributes?.labels[POD_UID_LABEL];
    if (!uid) continue;
    byUid.set(uid, [...(byUid.get(uid) ?? []), s]);
  }
  const known = new Map(options.pods.map((pod) => [pod.metadata.uid ?? '', pod]));
  const pods = [...new Set([...known.keys(), ...byUid.keys()])]
    .filter((uid) => uid !== '')
    .map((uid) => {
      const list = byUid.get(uid) ?? [];
      const pod = known.get(uid);
      const labels = list[0]?.attributes?.labels ?? {};
      const containers = list.map(containerStats);
      return {
        podRef: { name: pod?.metadata.name ?? labels[POD_NAME_LABEL] ?? '', namespace: pod?.metadata.namespace ?? labels[POD_NAMESPACE_LABEL] ?? '', uid },
        startTime: (pod?.status as { startTime?: string } | undefined)?.startTime ?? containers[0]?.startTime ?? time,
        containers,
        cpu: { time, usageNanoCores: sum(containers.map((c) => c.cpu.usageNanoCores)), usageCoreNanoSeconds: sum(containers.map((c) => c.cpu.usageCoreNanoSeconds)) },
        memory: { time, workingSetBytes: sum(containers.map((c) => c.memory.workingSetBytes)), usageBytes: sum(containers.map((c) => c.memory.usageBytes)) },
      };
    });
  return { node, pods };
}
