/**
 * `svc up` as an operator runs it: a child process on a data dir, its stdout read line by line,
 * and what of its node would be left on the host (containerd, shims, mounts, the bridge).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { bridgeName } from '../../src/cli/up-node.js';
import { freePodCidr, linkExists, shimsOf } from '../../src/nodeagent/index.js';

export interface UpProcess {
  readonly child: ChildProcess;
  /** Every stdout line so far. */
  readonly lines: string[];
  readonly stderr: string[];
  /** The exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** Resolves with the first stdout line (already seen or coming) that matches; rejects if svc up exits first. */
  line(match: (line: string) => boolean): Promise<string>;
}

const REPO = join(import.meta.dirname, '..', '..');

/**
 * A pod network for a test's `svc up`: a free 10.x.y.0/24 at random. The default 10.42.0.0/24 is
 * taken only when no route covers it, and two `svc up`s started together (two suites at once, or
 * another run's) both see it free before either made its bridge: pods of one then get the other's
 * routes. A data dir that ran before keeps its range (<data-dir>/agent/pod-cidr wins).
 */
export const testPodCidr = (): string => `--pod-cidr=${freePodCidr()}`;

export function spawnUp(dataDir: string, args: readonly string[] = []): UpProcess {
  const cidr = args.some((arg) => arg.startsWith('--pod-cidr')) ? [] : [testPodCidr()];
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc.ts', 'up', `--data-dir=${dataDir}`, '--secure-port=0', '--node-agent-port=0', '--dashboard-port=0', ...cidr, ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const stderr: string[] = [];
  const waiters = new Set<{ match: (line: string) => boolean; resolve: (line: string) => void }>();
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const w of waiters) {
      if (w.match(line)) {
        waiters.delete(w);
        w.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr,
    exited,
    line(match) {
      const seen = lines.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        waiters.add({ match, resolve });
        void exited.then((code) => reject(new Error(`svc up exited (${code}) before the line; stderr:\n${stderr.join('').slice(-3000)}`)));
      });
    },
  };
}

/** containerd processes started with this data dir's config. */
export function containerdPids(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv[0]?.endsWith('containerd') && argv.includes(join(dataDir, 'containerd', 'config.toml'))) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/** What of the node of `svc up` on `dataDir` is still on the host. */
export function nodeLeftovers(dataDir: string) {
  return {
    containerd: containerdPids(dataDir),
    shims: shimsOf(join(dataDir, 'containerd', 'containerd.sock')),
    bridge: linkExists(bridgeName(dataDir)),
    mounts: Number(spawnSync('sh', ['-c', `grep -c ' ${dataDir}' /proc/self/mountinfo`], { encoding: 'utf8' }).stdout.trim()),
  };
}

export const NOTHING_LEFT = { containerd: [], shims: [], bridge: false, mounts: 0 };
