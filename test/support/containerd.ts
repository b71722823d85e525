/**
 * A private containerd for tests: its own root, state and socket under a temp directory, the CRI
 * plugin with svc's pause image, a bridge CNI network on a free /24, and svc's local busybox and
 * pause images imported. `stop()` removes everything it started — sandboxes (and with them
 * their network namespaces), containerd, any shim still serving its socket, mounts under its
 * directory, the bridge — so no containerd, shim or network namespace outlives the tests.
 * containerd is required: when a binary is missing this throws (suites fail, never skip).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CriClient,
  bridgeConflist,
  buildLocalImages,
  containerdConfig,
  defaultImageCacheDir,
  importImageArchive,
  type LocalImages,
} from '../../src/nodeagent/index.js';

export const CNI_BIN_DIR = '/usr/lib/cni';
const STARTUP_TIMEOUT_MS = 30_000;

export interface Leftovers {
  /** containerd-shim processes still serving this containerd's socket. */
  readonly shims: readonly number[];
  /** Mount points under the containerd's directory. */
  readonly mounts: readonly string[];
  /** Network namespaces created since this containerd started. */
  readonly netns: readonly string[];
  readonly containerdRunning: boolean;
  readonly bridgePresent: boolean;
}

export interface RunningContainerd {
  readonly dir: string;
  /** The gRPC socket path; the CRI endpoint is `unix://<address>`. */
  readonly address: string;
  readonly endpoint: string;
  readonly snapshotter: 'overlayfs' | 'native';
  readonly podCidr: string;
  readonly bridge: string;
  /** Where sandboxes in tests put their logs. */
  readonly logRoot: string;
  readonly images: LocalImages;
  readonly cri: CriClient;
  /** What of this containerd's would remain if the tests stopped now. */
  leftovers(): Leftovers;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

function requireBinary(name: string, hint: string): void {
  if (spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status !== 0) {
    throw new Error(`${name} is required by this suite and is not on PATH (${hint}; scripts/provision.mjs installs it)`);
  }
}

function requireNodeDependencies(): void {
  requireBinary('containerd', 'Debian: apt-get install containerd');
  requireBinary('ctr', 'ships with containerd');
  requireBinary('runc', 'Debian: apt-get install runc');
  if (!existsSync(join(CNI_BIN_DIR, 'bridge'))) throw new Error(`CNI plugins are missing from ${CNI_BIN_DIR} (Debian: apt-get install containernetworking-plugins)`);
}

/**
 * overlayfs fails where the temp directory is itself on overlay without the needed features
 * (nested containers); the native snapshotter (full copies) works everywhere.
 */
function overlaySupported(dir: string): boolean {
  const probe = join(dir, 'overlay-probe');
  const paths = ['l1', 'l2', 'upper', 'work', 'merged'].map((p) => join(probe, p));
  for (const p of paths) mkdirSync(p, { recursive: true });
  const [l1, l2, upper, work, merged] = paths as [string, string, string, string, string];
  const mounted = spawnSync('mount', ['-t', 'overlay', 'overlay', '-o', `lowerdir=${l1}:${l2},upperdir=${upper},workdir=${work}`, merged], { stdio: 'ignore' });
  if (mounted.status === 0) spawnSync('umount', [merged], { stdio: 'ignore' });
  rmSync(probe, { recursive: true, force: true });
  return mounted.status === 0;
}

/** A random 10.x.y.0/24 that no route on the host covers yet. */
function freePodCidr(): string {
  const routes = spawnSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' }).stdout ?? '';
  for (let attempt = 0; attempt < 50; attempt++) {
    const second = 200 + Math.floor(Math.random() * 50);
    const third = Math.floor(Math.random() * 256);
    const prefix = `10.${second}.${third}.`;
    if (!routes.includes(prefix) && !routes.includes(`10.${second}.0.0/16`)) return `${prefix}0/24`;
  }
  throw new Error('no free 10.x.y.0/24 for the test pod network');
}

/** Each test containerd mounts its network namespaces under its own state dir: suites running at once cannot see each other's. */
function listNetns(netnsDir: string): Set<string> {
  try {
    return new Set(readdirSync(netnsDir));
  } catch {
    return new Set();
  }
}

function mountsUnder(dir: string): string[] {
  const mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
  const points: string[] = [];
  for (const line of mountinfo.split('\n')) {
    const point = line.split(' ')[4];
    if (point && (point === dir || point.startsWith(`${dir}/`))) points.push(point.replace(/\\040/g, ' '));
  }
  return points;
}

/** Shims carry their containerd's socket in `-address`; that tells ours from anyone else's. */
function shimsOf(address: string): number[] {
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

function linkExists(name: string): boolean {
  return spawnSync('ip', ['link', 'show', name], { stdio: 'ignore' }).status === 0;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface StartContainerdOptions {
  /** Import svc's busybox and pause images (default true). */
  readonly importImages?: boolean;
}

export async function startContainerd(options: StartContainerdOptions = {}): Promise<RunningContainerd> {
  requireNodeDependencies();
  const images = buildLocalImages(defaultImageCacheDir());
  const dir = await mkdtemp('/tmp/svc-containerd-');
  const address = join(dir, 'containerd.sock');
  const snapshotter = overlaySupported(dir) ? 'overlayfs' : 'native';
  const podCidr = freePodCidr();
  const bridge = `svcbr${Math.random().toString(16).slice(2, 8)}`;
  const cniConfDir = join(dir, 'net.d');
  const logRoot = join(dir, 'pod-logs');
  mkdirSync(cniConfDir, { recursive: true });
  mkdirSync(logRoot, { recursive: true });
  writeFileSync(
    join(cniConfDir, '10-svc-bridge.conflist'),
    JSON.stringify(bridgeConflist({ name: `svc-test-${bridge}`, bridge, podCidr, ipamDataDir: join(dir, 'ipam') }), null, 2),
  );
  const configPath = join(dir, 'config.toml');
  writeFileSync(
    configPath,
    containerdConfig({
      root: join(dir, 'root'),
      state: join(dir, 'state'),
      address,
      sandboxImage: images.pause.ref,
      snapshotter,
      cniConfDir,
      cniBinDir: CNI_BIN_DIR,
      netnsUnderStateDir: true,
    }),
  );

  const netnsDir = join(dir, 'state', 'io.containerd.grpc.v1.cri', 'netns');
  const netnsBefore = listNetns(netnsDir);
  installExitHook();
  const child = spawn('containerd', ['--config', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      running.delete(child);
      resolve();
    });
  });
  const log: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    log.push(chunk);
    if (log.length > 100) log.shift();
  });

  const cri = new CriClient({ endpoint: `unix://${address}`, timeoutMs: 60_000 });
  const sandboxNetns = new Set<string>();

  const leftovers = (): Leftovers => {
    const now = listNetns(netnsDir);
    return {
      shims: shimsOf(address),
      mounts: mountsUnder(dir),
      netns: [...now].filter((n) => !netnsBefore.has(n)),
      containerdRunning: !exited,
      bridgePresent: linkExists(bridge),
    };
  };

  const stop = async (): Promise<void> => {
    if (!exited) {
      try {
        // Stopping a sandbox is what tears down its network namespace (CNI DEL) and its shim.
        for (const sandbox of (await cri.listPodSandbox({}, { timeoutMs: 10_000 })).items) {
          try {
            const status = await cri.podSandboxStatus({ podSandboxId: sandbox.id, verbose: true }, { timeoutMs: 10_000 });
            const netns = netnsPathOf(status.info);
            if (netns) sandboxNetns.add(netns);
            await cri.stopPodSandbox({ podSandboxId: sandbox.id });
            await cri.removePodSandbox({ podSandboxId: sandbox.id });
          } catch {
            // keep going: what is left is removed by force below
          }
        }
      } catch {
        // containerd not answering: force below
      }
      cri.close();
      child.kill('SIGTERM');
      await Promise.race([exitPromise, sleep(10_000)]);
      if (!exited) child.kill('SIGKILL');
      await exitPromise;
    } else {
      cri.close();
    }
    for (const pid of shimsOf(address)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (let i = 0; i < 50 && shimsOf(address).length > 0; i++) await sleep(100);
    for (const point of mountsUnder(dir).sort((a, b) => b.length - a.length)) {
      if (spawnSync('umount', [point], { stdio: 'ignore' }).status !== 0) spawnSync('umount', ['-l', point], { stdio: 'ignore' });
    }
    for (const path of sandboxNetns) {
      if (existsSync(path)) {
        spawnSync('umount', [path], { stdio: 'ignore' });
        rmSync(path, { force: true });
      }
    }
    if (linkExists(bridge)) spawnSync('ip', ['link', 'delete', bridge], { stdio: 'ignore' });
    const stillMounted = mountsUnder(dir);
    // Never delete through a mount: what is mounted there is not ours to remove.
    if (stillMounted.length > 0) throw new Error(`containerd test dir ${dir} still has mounts: ${stillMounted.join(', ')}`);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    for (;;) {
      if (exited) throw new Error(`containerd exited during startup:\n${log.join('').slice(-4000)}`);
      try {
        await cri.version({ version: 'v1' }, { timeoutMs: 1000 });
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`containerd did not answer CRI Version in time:\n${log.join('').slice(-4000)}`);
        await sleep(100);
      }
    }
    if (options.importImages ?? true) {
      for (const image of [images.pause, images.busybox]) await importImageArchive({ address, archive: image.path, snapshotter });
    }
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }

  return { dir, address, endpoint: `unix://${address}`, snapshotter, podCidr, bridge, logRoot, images, cri, leftovers, stop };
}

/** containerd's verbose sandbox info holds the OCI runtime spec; its network namespace path is there. */
export function netnsPathOf(info: Record<string, string>): string | undefined {
  const raw = info.info;
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as { runtimeSpec?: { linux?: { namespaces?: { type?: string; path?: string }[] } } };
    return parsed.runtimeSpec?.linux?.namespaces?.find((n) => n.type === 'network')?.path || undefined;
  } catch {
    return undefined;
  }
}
