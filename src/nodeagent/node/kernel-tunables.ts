/**
 * The kernel tunables the kubelet's container manager insists on (`setupKernelTunables`): with
 * `--protect-kernel-defaults` a value that differs is an error and the agent does not start;
 * without it the agent writes the expected value. Every difference is reported, not just the
 * first, so an operator fixes them in one go.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The tunables and the values the kubelet expects: overcommit always (the agent's memory
 * accounting assumes it), the OOM killer rather than a panic on OOM, a panic on an oops and a
 * reboot 10 s after a panic, and key quotas large enough for one keyring per container.
 */
export const KERNEL_TUNABLES: Readonly<Record<string, number>> = {
  'vm.overcommit_memory': 1,
  'vm.panic_on_oom': 0,
  'kernel.panic': 10,
  'kernel.panic_on_oops': 1,
  'kernel.keys.root_maxkeys': 1_000_000,
  'kernel.keys.root_maxbytes': 25_000_000,
};

/** Reads and writes sysctls by dotted name (`vm.overcommit_memory`). */
export interface SysctlAccess {
  read(name: string): number;
  write(name: string, value: number): void;
}

/** The sysctls under `root` (`/proc/sys` on a host; tests give a directory of their own). */
export function procSysctls(root = '/proc/sys'): SysctlAccess {
  const path = (name: string) => join(root, ...name.split('.'));
  return {
    read: (name) => {
      const text = readFileSync(path(name), 'utf8').trim();
      const value = Number(text);
      if (!Number.isInteger(value)) throw new Error(`sysctl ${name}: ${JSON.stringify(text)} is not an integer`);
      return value;
    },
    write: (name, value) => writeFileSync(path(name), `${value}\n`),
  };
}

export interface KernelTunablesResult {
  /** The tunables the agent changed, with the value each had. */
  readonly updated: readonly { readonly name: string; readonly from: number; readonly to: number }[];
  /** What is wrong, one line per tunable: empty when the kernel is as the agent needs it. */
  readonly problems: readonly string[];
}

/**
 * Checks every tunable; with `protect` false each one that differs is written. A tunable that
 * cannot be read, or (not protecting) written, is a problem too, as for the kubelet: the caller
 * refuses to start when `problems` is not empty.
 */
export function setupKernelTunables(sysctls: SysctlAccess, protect: boolean): KernelTunablesResult {
  const updated: { name: string; from: number; to: number }[] = [];
  const problems: string[] = [];
  for (const [name, expected] of Object.entries(KERNEL_TUNABLES)) {
    let actual: number;
    try {
      actual = sysctls.read(name);
    } catch (error) {
      problems.push(`cannot read kernel flag ${name}: ${(error as Error).message}`);
      continue;
    }
    if (actual === expected) continue;
    if (protect) {
      problems.push(`invalid kernel flag: ${name}, expected value: ${expected}, actual value: ${actual}`);
      continue;
    }
    try {
      sysctls.write(name, expected);
      updated.push({ name, from: actual, to: expected });
    } catch (error) {
      problems.push(`cannot set kernel flag ${name} to ${expected} (it is ${actual}): ${(error as Error).message}`);
    }
  }
  return { updated, problems };
}

/**
 * A copy of this host's tunables under `root` (a tunable the host does not show gets the agent's
 * value), for agents that must leave the host's kernel alone: the test suites and the benchmarks
 * give it to the agents they start. Returns `root`.
 */
export function copyKernelTunables(root: string, from = '/proc/sys'): string {
  for (const [name, expected] of Object.entries(KERNEL_TUNABLES)) {
    const path = name.split('.');
    const file = join(root, ...path);
    mkdirSync(dirname(file), { recursive: true });
    let value: string;
    try {
      value = readFileSync(join(from, ...path), 'utf8');
    } catch {
      value = `${expected}\n`;
    }
    writeFileSync(file, value);
  }
  return root;
}
