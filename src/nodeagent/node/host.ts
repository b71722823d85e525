import { readFileSync, statfsSync } from 'node:fs';
import { arch, availableParallelism, hostname, platform, totalmem } from 'node:os';
import { readSystemIdentity, type SystemIdentity } from './system-identity.js';

/**
 * What the node reports about the machine it runs on. Read fresh on every status check (the
 * figures that change: free memory, disk and pids); an interface so tests can describe any host.
 */
export interface HostInfo {
  hostname(): string;
  /** `svc.io/os` and nodeInfo.operatingSystem: Node's `process.platform` (`linux`). */
  readonly os: string;
  /** `svc.io/arch`: Go's names (`amd64`, `arm64`), as every Kubernetes tool expects. */
  readonly arch: string;
  /** Logical CPUs. */
  cpus(): number;
  memory(): { readonly totalBytes: number; readonly availableBytes: number };
  /** The filesystem that holds `path` (the root dir). */
  filesystem(path: string): { readonly capacityBytes: number; readonly availableBytes: number };
  /** The pid limit and the processes and threads that exist now. */
  pids(): { readonly max: number; readonly running: number };
  /** nodeInfo's identity fields (`system-identity.ts`). */
  system(): SystemIdentity;
}

const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' };

const readTrimmed = (path: string): string => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
};

/** `MemAvailable` of /proc/meminfo (the kernel's estimate that counts reclaimable cache), in bytes. */
function memAvailable(): number | undefined {
  const match = /^MemAvailable:\s+(\d+) kB$/m.exec(readTrimmed('/proc/meminfo'));
  return match ? Number(match[1]) * 1024 : undefined;
}

let identity: SystemIdentity | undefined;

/** This machine, from node:os, /proc and statfs. */
export const thisHost: HostInfo = Object.freeze({
  hostname,
  os: platform(),
  arch: GO_ARCH[arch()] ?? arch(),
  cpus: availableParallelism,
  memory() {
    const totalBytes = totalmem();
    return { totalBytes, availableBytes: memAvailable() ?? totalBytes };
  },
  filesystem(path: string) {
    const fs = statfsSync(path);
    // bavail, not bfree: what an unprivileged writer (a pod) can use, as the kubelet's cadvisor reports.
    return { capacityBytes: fs.blocks * fs.bsize, availableBytes: fs.bavail * fs.bsize };
  },
  pids() {
    const max = Number(readTrimmed('/proc/sys/kernel/pid_max')) || 32768;
    // The fourth field of loadavg is "runnable/existing" scheduling entities: every thread holds a pid.
    const running = Number(/\d+\/(\d+)/.exec(readTrimmed('/proc/loadavg'))?.[1] ?? 0);
    return { max, running };
  },
  // Read once: none of it changes while the agent runs (a reboot restarts the agent too).
  system: () => (identity ??= readSystemIdentity()),
});
