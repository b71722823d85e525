/**
 * What a containerd leaves on the host besides its directories — shims, mounts, network
 * namespaces, the pod bridge — found the way an operator would look for them, so whoever starts
 * a containerd can prove it stopped everything it started.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Where network namespaces are mounted unless a runtime keeps its own (`netns_mounts_under_state_dir`). */
export const NETNS_DIR = '/var/run/netns';

export function listNetns(dir: string = NETNS_DIR): Set<string> {
  try {
    return new Set(readdirSync(dir));
  } catch {
    return new Set();
  }
}

/** Mount points at or under `dir`, from this process's mount table. */
export function mountsUnder(dir: string): string[] {
  const mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
  const points: string[] = [];
  for (const line of mountinfo.split('\n')) {
    const point = line.split(' ')[4];
    if (point && (point === dir || point.startsWith(`${dir}/`))) points.push(point.replace(/\\040/g, ' '));
  }
  return points;
}

/** Shims carry their containerd's socket in `-address`; that tells ours from anyone else's. */
export function shimsOf(address: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (!argv[0]?.includes('containerd-shim')) continue;
    const i = argv.indexOf('-address');
    if (i >= 0 && argv[i + 1] === address) pids.push(Number(entry));
  }
  return pids;
}

export function linkExists(name: string): boolean {
  return spawnSync('ip', ['link', 'show', name], { stdio: 'ignore' }).status === 0;
}

/** containerd's verbose sandbox info holds the OCI runtime spec; its network namespace path is there. */
export function netnsPathOf(info: Record<string, string>): string | undefined {
  const raw = info['info'];
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as { runtimeSpec?: { linux?: { namespaces?: { type?: string; path?: string }[] } } };
    return parsed.runtimeSpec?.linux?.namespaces?.find((n) => n.type === 'network')?.path || undefined;
  } catch {
    return undefined;
  }
}

/**
 * overlayfs fails where the directory is itself on overlay without the needed features (nested
 * containers); the native snapshotter (full copies) works everywhere.
 */
export function overlaySupported(dir: string): boolean {
  const probe = `${dir}/overlay-probe`;
  const paths = ['l1', 'l2', 'upper', 'work', 'merged'].map((p) => `${probe}/${p}`);
  spawnSync('mkdir', ['-p', ...paths]);
  const [l1, l2, upper, work, merged] = paths as [string, string, string, string, string];
  const mounted = spawnSync('mount', ['-t', 'overlay', 'overlay', '-o', `lowerdir=${l1}:${l2},upperdir=${upper},workdir=${work}`, merged], { stdio: 'ignore' });
  if (mounted.status === 0) spawnSync('umount', [merged], { stdio: 'ignore' });
  spawnSync('rm', ['-rf', probe]);
  return mounted.status === 0;
}

/**
 * A 10.x.y.0/24 that no route on the host covers yet: `preferred` when it is free, else a random
 * one in 10.200–249.x (away from the ranges Docker, k3s and cloud VPCs usually take).
 */
export function freePodCidr(preferred?: string): string {
  const routes = spawnSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' }).stdout ?? '';
  const free = (prefix: string, second: string): boolean => !routes.includes(prefix) && !routes.includes(`10.${second}.0.0/16`);
  const wanted = preferred && /^10\.(\d+)\.(\d+)\.0\/24$/.exec(preferred);
  if (wanted && free(`10.${wanted[1]}.${wanted[2]}.`, wanted[1]!)) return preferred!;
  for (let attempt = 0; attempt < 50; attempt++) {
    const second = 200 + Math.floor(Math.random() * 50);
    const third = Math.floor(Math.random() * 256);
    if (free(`10.${second}.${third}.`, String(second))) return `10.${second}.${third}.0/24`;
  }
  throw new Error('no free 10.x.y.0/24 for the pod network');
}
