/**
 * The few cgroup operations the QoS manager needs, on either hierarchy, with the cgroupfs driver's
 * naming (a cgroup `/kubepods/burstable` is that path under each controller's mount): make a
 * cgroup, set and read its memory limit and CPU weight, read its memory usage. cgroup v1 keeps
 * each controller in its own mount (`memory.limit_in_bytes`, `memory.usage_in_bytes`,
 * `cpu.shares`); v2 has one tree (`memory.max`, `memory.current`, `cpu.weight`) where a parent
 * must delegate the controllers to its children (`cgroup.subtree_control`) before they have their
 * files.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CgroupFiles {
  readonly version: 1 | 2;
  /** Makes `name` (and its parents) with the memory and cpu controllers. */
  ensure(name: string): void;
  /** Sets the CPU weight as v1 shares (2-262144; v2 gets the weight they map to). */
  setCpuShares(name: string, shares: number): void;
  /** The CPU weight as v1 shares (on v2 the weight as written). */
  cpuWeight(name: string): number;
  /** Sets the memory limit in bytes (throws as the kernel refuses, e.g. EBUSY under usage on v1). */
  setMemoryLimit(name: string, bytes: number): void;
  /** The memory limit in bytes; undefined for none (`max`, or v1's page-rounded "unlimited"). */
  memoryLimit(name: string): number | undefined;
  memoryUsage(name: string): number;
  /** The directory of `name` in the memory hierarchy. */
  memoryDir(name: string): string;
}

/** v1 reports "no limit" as the largest page-aligned signed 64-bit number. */
const V1_UNLIMITED = 2 ** 63 - 4096;

/** v1 shares (2-262144) as a v2 weight (1-10000), the runtime's and the kubelet's mapping. */
export const sharesToWeight = (shares: number): number => 1 + Math.floor(((shares - 2) * 9999) / 262142);

const segments = (name: string) => name.split('/').filter((part) => part !== '');

/** This host's cgroups under `mount` (default /sys/fs/cgroup), v2 when it is a unified hierarchy. */
export function hostCgroups(mount = '/sys/fs/cgroup'): CgroupFiles {
  const version: 1 | 2 = existsSync(join(mount, 'cgroup.controllers')) ? 2 : 1;
  const memoryRoot = version === 2 ? mount : join(mount, 'memory');
  const cpuRoot = version === 2 ? mount : join(mount, 'cpu');
  const dir = (name: string) => join(memoryRoot, ...segments(name));
  const cpuDir = (name: string) => join(cpuRoot, ...segments(name));
  const limitFile = version === 2 ? 'memory.max' : 'memory.limit_in_bytes';
  const usageFile = version === 2 ? 'memory.current' : 'memory.usage_in_bytes';
  return {
    version,
    memoryDir: dir,
    ensure(name) {
      if (version === 1) {
        mkdirSync(dir(name), { recursive: true });
        mkdirSync(cpuDir(name), { recursive: true });
        return;
      }
      // Each ancestor delegates memory and cpu to its children, from the root down.
      let path = memoryRoot;
      for (const part of segments(name)) {
        const delegated = readFileSync(join(path, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
        const available = readFileSync(join(path, 'cgroup.controllers'), 'utf8').split(/\s+/);
        // memory is required (the write fails without it); cpu only where the host offers it.
        for (const controller of ['memory', 'cpu']) {
          if (delegated.includes(controller) || (controller === 'cpu' && !available.includes('cpu'))) continue;
          writeFileSync(join(path, 'cgroup.subtree_control'), `+${controller}`);
        }
        path = join(path, part);
        mkdirSync(path, { recursive: true });
      }
    },
    setMemoryLimit: (name, bytes) => writeFileSync(join(dir(name), limitFile), String(Math.max(0, Math.floor(bytes)))),
    memoryLimit(name) {
      const text = readFileSync(join(dir(name), limitFile), 'utf8').trim();
      if (text === 'max') return undefined;
      const value = Number(text);
      return value >= V1_UNLIMITED ? undefined : value;
    },
    setCpuShares: (name, shares) =>
      version === 2 ? writeFileSync(join(cpuDir(name), 'cpu.weight'), String(sharesToWeight(shares))) : writeFileSync(join(cpuDir(name), 'cpu.shares'), String(shares)),
    cpuWeight: (name) => Number(readFileSync(join(cpuDir(name), version === 2 ? 'cpu.weight' : 'cpu.shares'), 'utf8').trim()),
    memoryUsage: (name) => Number(readFileSync(join(dir(name), usageFile), 'utf8').trim()),
  };
}
