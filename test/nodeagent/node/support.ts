import type { HostInfo, RuntimeInfo, RuntimeReadiness } from '../../../src/nodeagent/index.js';

const GiB = 2 ** 30;

/** A machine with fixed figures that a test can change: the node status reads it at every check. */
export function fixedHost(overrides: Partial<{ cpus: number; memTotal: number; memAvailable: number; fsCapacity: number; fsAvailable: number; pidMax: number; pidRunning: number }> = {}) {
  const figures = { cpus: 4, memTotal: 8 * GiB, memAvailable: 4 * GiB, fsCapacity: 100 * GiB, fsAvailable: 50 * GiB, pidMax: 4_194_304, pidRunning: 100, ...overrides };
  const host: HostInfo = {
    hostname: () => 'Test-Host',
    os: 'linux',
    arch: 'amd64',
    cpus: () => figures.cpus,
    memory: () => ({ totalBytes: figures.memTotal, availableBytes: figures.memAvailable }),
    filesystem: () => ({ capacityBytes: figures.fsCapacity, availableBytes: figures.fsAvailable }),
    pids: () => ({ max: figures.pidMax, running: figures.pidRunning }),
    system: () => ({ systemUUID: 'u-1', machineID: 'm-1', bootID: 'b-1', kernelVersion: '6.1.0-test', osImage: 'Test Linux 1' }),
  };
  return { host, figures };
}

/** A runtime whose readiness the test sets. */
export function settableRuntime(): RuntimeInfo & { set(readiness: RuntimeReadiness): void } {
  let readiness: RuntimeReadiness = { ready: true, message: '' };
  return {
    set: (r) => (readiness = r),
    version: async () => ({ runtimeName: 'testruntime', runtimeVersion: '1.2.3' }),
    readiness: async () => readiness,
  };
}
