/**
 * `--kernel-memcg-notification`: the kernel tells the agent when memory use crosses a threshold,
 * so the eviction manager runs a pass then instead of at its next housekeeping tick. As the
 * kubelet does, this is cgroup v1's memory threshold notification — an eventfd registered on the
 * node's memory cgroup `memory.usage_in_bytes` through `cgroup.event_control` — at
 *
 *   usage threshold = capacity − the threshold's quantity + inactive_file
 *
 * (the working set, usage less the inactive file pages, reaching capacity − threshold), one per
 * memory.available threshold, moved as the observations change. cgroup v2 has no such interface
 * and the kubelet registers nothing there: on v2 (or where the helper cannot run) the agent says
 * so and polling is all there is. Polling always stays: a notification only brings a pass forward.
 *
 * Node.js cannot make an eventfd, so a small Perl program (perl-base is in every Debian and
 * Ubuntu system) makes it with the eventfd2 system call, registers it, and prints a line each time
 * the kernel signals it; the agent reads those lines.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileLog } from '../log/index.js';
import { amountOf, type EvictionThreshold } from './eviction-thresholds.js';
import type { EvictionObservation } from './observe.js';

/** eventfd2's system call number on the architectures the helper knows. */
const EVENTFD2: Readonly<Partial<Record<string, number>>> = { x64: 290, arm64: 19, riscv64: 19 };
/** prctl's, for PR_SET_PDEATHSIG: a helper outlives no agent, however the agent ends. */
const PRCTL: Readonly<Partial<Record<string, number>>> = { x64: 157, arm64: 167, riscv64: 167 };

/** The helper: killed with its parent (PR_SET_PDEATHSIG, SIGKILL), eventfd2, registration on `<dir>/memory.usage_in_bytes`, one "crossed" line per signal. */
const HELPER = [
  'use strict;',
  'my ($nr, $prctl, $parent, $dir, $threshold) = @ARGV;',
  'syscall($prctl, 1, 9);',
  'exit 0 if getppid() != $parent;',
  'my $efd = syscall($nr, 0, 0);',
  'die "eventfd2: $!\\n" if $efd < 0;',
  'open(my $usage, "<", "$dir/memory.usage_in_bytes") or die "$dir/memory.usage_in_bytes: $!\\n";',
  'open(my $ctl, ">", "$dir/cgroup.event_control") or die "$dir/cgroup.event_control: $!\\n";',
  'syswrite($ctl, "$efd " . fileno($usage) . " $threshold") or die "$dir/cgroup.event_control: $!\\n";',
  'close($ctl);',
  'open(my $ev, "<&=", $efd) or die "eventfd: $!\\n";',
  '$| = 1;',
  'print "ready\\n";',
  'while (sysread($ev, my $buf, 8) == 8) { print "crossed\\n"; }',
].join('\n');

/** One registered threshold. */
export interface ThresholdNotifier {
  stop(): void;
}

/**
 * Registers `usageBytes` on the memory cgroup at `dir`; `onReady` runs once the kernel has the
 * registration, `onCrossed` each time usage crosses it (either way).
 */
export type NotifierFactory = (dir: string, usageBytes: number, handlers: { onReady: () => void; onCrossed: () => void; onError: (error: Error) => void }) => ThresholdNotifier;

/** The kernel's cgroup v1 threshold notification, through the Perl helper. */
export const cgroupV1Notifier: NotifierFactory = (dir, usageBytes, { onReady, onCrossed, onError }) => {
  const nr = EVENTFD2[process.arch];
  const prctl = PRCTL[process.arch];
  if (nr === undefined || prctl === undefined) {
    onError(new Error(`no eventfd2 system call number known for ${process.arch}`));
    return { stop: () => undefined };
  }
  let stopped = false;
  const child = spawn('perl', ['-e', HELPER, String(nr), String(prctl), String(process.pid), dir, String(Math.max(0, Math.floor(usageBytes)))], { stdio: ['ignore', 'pipe', 'pipe'] });
  let pending = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (line === 'ready') onReady();
      else if (line === 'crossed') onCrossed();
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 2048) stderr += chunk;
  });
  child.on('error', (error) => {
    if (!stopped) onError(new Error(`cannot run perl for the memory threshold notification: ${error.message}`));
  });
  child.on('exit', (code, signal) => {
    if (!stopped) onError(new Error(`the memory threshold notifier ended (${signal ?? `status ${code}`})${stderr ? `: ${stderr.trim()}` : ''}`));
  });
  return {
    stop: () => {
      stopped = true;
      child.kill('SIGKILL');
    },
  };
};

/** Where notifications can be had: cgroup v1's memory controller, at its root (the node's memory). */
export function memcgNotificationSupport(mount = '/sys/fs/cgroup'): { readonly available: true; readonly dir: string } | { readonly available: false; readonly reason: string } {
  if (existsSync(join(mount, 'cgroup.controllers'))) return { available: false, reason: 'cgroup v2 has no memory threshold notification (the kubelet registers none there either)' };
  const dir = join(mount, 'memory');
  if (!existsSync(join(dir, 'cgroup.event_control'))) return { available: false, reason: `${dir} has no cgroup.event_control` };
  if (EVENTFD2[process.arch] === undefined) return { available: false, reason: `no eventfd2 system call number known for ${process.arch}` };
  return { available: true, dir };
}

/** The inactive file pages of the cgroup at `dir` (v1 memory.stat, hierarchical). */
function inactiveFileBytes(dir: string): number {
  const stat = readFileSync(join(dir, 'memory.stat'), 'utf8');
  const match = /^total_inactive_file (\d+)$/m.exec(stat) ?? /^inactive_file (\d+)$/m.exec(stat);
  return match ? Number(match[1]) : 0;
}

export interface MemoryThresholdNotifiersOptions {
  readonly thresholds: readonly EvictionThreshold[];
  /** The memory cgroup watched: the node's (v1 root) unless a test gives its own. */
  readonly dir: string;
  readonly factory?: NotifierFactory;
  /** A threshold was crossed: run an eviction pass. */
  readonly onCrossed: (threshold: EvictionThreshold) => void;
  readonly onError: (error: Error) => void;
  /** The kernel holds a registration (tests wait for it). */
  readonly onReady?: ((threshold: EvictionThreshold, usageBytes: number) => void) | undefined;
  /** Registrations at -v 3, crossings at -v 4. */
  readonly log?: FileLog | undefined;
}

/** A registration moves only when its threshold moved by more than this share of capacity (each move restarts the helper). */
const MOVE_FRACTION = 0.01;

/** One notifier per memory.available threshold, re-registered as the observations move it. */
export class MemoryThresholdNotifiers {
  readonly #o: MemoryThresholdNotifiersOptions;
  readonly #current = new Map<EvictionThreshold, { usageBytes: number; notifier: ThresholdNotifier }>();
  /** Stopped: a pass still in flight registers nothing more. */
  #stopped = false;

  constructor(options: MemoryThresholdNotifiersOptions) {
    this.#o = options;
  }

  /** Called with each pass's observation (the kubelet's UpdateThreshold). */
  update(observation: EvictionObservation): void {
    if (this.#stopped) return;
    const memory = observation.signals.get('memory.available');
    if (!memory) return;
    let inactive: number;
    try {
      inactive = inactiveFileBytes(this.#o.dir);
    } catch (error) {
      this.#o.onError(error as Error);
      return;
    }
    for (const threshold of this.#o.thresholds) {
      if (threshold.signal !== 'memory.available') continue;
      const usageBytes = memory.capacity - amountOf(threshold.value, memory.capacity) + inactive;
      const current = this.#current.get(threshold);
      if (current && Math.abs(current.usageBytes - usageBytes) <= memory.capacity * MOVE_FRACTION) continue;
      current?.notifier.stop();
      const what = `memory threshold notification at usage ${usageBytes} of ${this.#o.dir} (${threshold.hard ? 'hard' : 'soft'} memory.available)`;
      const entry: { usageBytes: number; notifier: ThresholdNotifier } = { usageBytes, notifier: { stop: () => undefined } };
      this.#current.set(threshold, entry);
      entry.notifier = (this.#o.factory ?? cgroupV1Notifier)(this.#o.dir, usageBytes, {
        onReady: () => {
          this.#o.log?.info(3, `${what}: registered`);
          this.#o.onReady?.(threshold, usageBytes);
        },
        onCrossed: () => {
          this.#o.log?.info(4, `memory usage of ${this.#o.dir} crossed ${usageBytes}`);
          this.#o.onCrossed(threshold);
        },
        onError: (error) => {
          // A dead helper is dropped, so the next observation registers again.
          if (this.#current.get(threshold) === entry) this.#current.delete(threshold);
          this.#o.onError(error);
        },
      });
    }
  }

  stop(): void {
    this.#stopped = true;
    for (const { notifier } of this.#current.values()) notifier.stop();
    this.#current.clear();
  }
}
