/**
 * A containerd of the node's own — its root, state, socket and CNI network under one directory —
 * started as a child process the way k3s runs its embedded containerd. `stop()` takes down what
 * it started: pod sandboxes (which ends their network namespaces and shims), containerd, any shim
 * still serving its socket, mounts under its directory, the bridge.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bridgeConflist } from '../cri/cni-config.js';
import { BRIDGE_CONFLIST } from '../cri/pod-cidr-bridge.js';
import { CriClient } from '../cri/client.js';
import { containerdConfig } from '../cri/containerd-config.js';
import type { RegistryConfig } from '../cri/registry-config.js';
import { registryAuths, writeRegistryHosts } from '../cri/registry-hosts.js';
import { DEFAULT_CNI_BIN_DIR } from './host-dependencies.js';
import { linkExists, listNetns, mountsUnder, netnsPathOf, overlaySupported, shimsOf } from './host-state.js';

export interface ContainerdProcessOptions {
  /** Everything containerd keeps: `root/`, `state/`, `containerd.sock`, `net.d/`, `ipam/`. */
  readonly dir: string;
  /** The pod network (an IPv4 /24 for one node). */
  readonly podCidr: string;
  /** Linux bridge for the pod network, at most 15 characters. */
  readonly bridge: string;
  readonly sandboxImage: string;
  readonly cniBinDir?: string;
  /** Default: overlayfs when this directory can mount it, else native. */
  readonly snapshotter?: 'overlayfs' | 'native';
  /** Default 30 s. */
  readonly startupTimeoutMs?: number;
  /** The CRI client's deadline per call; default 2 min. */
  readonly criTimeoutMs?: number;
  /**
   * Registry mirrors, credentials and TLS (a registries.yaml): written as `<dir>/certs.d/<registry>/hosts.toml`
   * and the CRI plugin's per-host auth. Unset: every registry is reached directly over HTTPS.
   */
  readonly registries?: RegistryConfig;
  /** containerd's stderr, line by line (its log level is `warn`). */
  readonly onLog?: (line: string) => void;
}

/** What of this containerd's would remain on the host if it stopped now. */
export interface ContainerdLeftovers {
  readonly shims: readonly number[];
  readonly mounts: readonly string[];
  /** Network namespaces of this containerd's (under its state dir) created since it started. */
  readonly netns: readonly string[];
  readonly containerdRunning: boolean;
  readonly bridgePresent: boolean;
}

export interface ContainerdProcess {
  readonly dir: string;
  /** The gRPC socket path; the CRI endpoint is `unix://<address>`. */
  readonly address: string;
  readonly endpoint: string;
  readonly snapshotter: 'overlayfs' | 'native';
  readonly podCidr: string;
  readonly bridge: string;
  readonly cri: CriClient;
  /** Settles when containerd exits, for whatever reason. */
  readonly exited: Promise<void>;
  leftovers(): ContainerdLeftovers;
  /**
   * Stops every pod sandbox, then containerd, then whatever it left. `removeDir` also deletes
   * its directory (images and all); refused while something is still mounted there.
   */
  stop(options?: { readonly removeDir?: boolean }): Promise<void>;
}

/** Unix socket paths are limited to 107 bytes on Linux. */
const MAX_SOCKET_PATH = 107;

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A containerd must not outlive the process that started it, even when that one crashes. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** How often a starting containerd is asked whether it answers yet (CRI Version). */
const STARTUP_POLL_MS = 100;

export async function startContainerdProcess(options: ContainerdProcessOptions): Promise<ContainerdProcess> {
  const { dir, podCidr, bridge } = options;
  const address = join(dir, 'containerd.sock');
  if (Buffer.byteLength(address) > MAX_SOCKET_PATH) {
    throw new Error(`containerd's socket path ${address} is longer than ${MAX_SOCKET_PATH} bytes: choose a shorter data directory`);
  }
  mkdirSync(dir, { recursive: true });
  const snapshotter = options.snapshotter ?? (overlaySupported(dir) ? 'overlayfs' : 'native');
  const cniConfDir = join(dir, 'net.d');
  mkdirSync(cniConfDir, { recursive: true });
  writeFileSync(
    join(cniConfDir, BRIDGE_CONFLIST),
    JSON.stringify(bridgeConflist({ name: `svc-${bridge}`, bridge, podCidr, ipamDataDir: join(dir, 'ipam') }), null, 2),
  );
  const registryConfigPath = join(dir, 'certs.d');
  if (options.registries) writeRegistryHosts(registryConfigPath, options.registries);
  else rmSync(registryConfigPath, { recursive: true, force: true });
  const configPath = join(dir, 'config.toml');
  writeFileSync(
    configPath,
    containerdConfig({
      root: join(dir, 'root'),
      state: join(dir, 'state'),
      address,
      sandboxImage: options.sandboxImage,
      snapshotter,
      cniConfDir,
      cniBinDir: options.cniBinDir ?? DEFAULT_CNI_BIN_DIR,
      // Its sandboxes' network namespaces live in its own state dir: another containerd on the
      // host (a second cluster, a test suite) neither sees nor counts them.
      netnsUnderStateDir: true,
      ...(options.registries ? { registryConfigPath, registryAuths: registryAuths(options.registries) } : {}),
    }),
  );

  const netnsDir = join(dir, 'state', 'io.containerd.grpc.v1.cri', 'netns');
  const netnsBefore = listNetns(netnsDir);
  installExitHook();
  const child = spawn('containerd', ['--config', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  let hasExited = false;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      hasExited = true;
      running.delete(child);
      resolve();
    });
  });
  const tail: string[] = [];
  let partial = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      tail.push(line);
      if (tail.length > 50) tail.shift();
      options.onLog?.(line);
    }
  });

  // Polled every STARTUP_POLL_MS until it answers: gRPC must try to connect as often, not wait its
  // default second after the first refused connect (the socket appears ~0.3 s after the spawn, and
  // every containerd start paid that second: 1.2-1.4 s to the first answer instead of ~0.3 s).
  const cri = new CriClient({ endpoint: `unix://${address}`, timeoutMs: options.criTimeoutMs ?? 120_000, reconnectBackoffMs: STARTUP_POLL_MS });
  const sandboxNetns = new Set<string>();

  const leftovers = (): ContainerdLeftovers => ({
    shims: shimsOf(address),
    mounts: mountsUnder(dir),
    netns: [...listNetns(netnsDir)].filter((n) => !netnsBefore.has(n)),
    containerdRunning: !hasExited,
    bridgePresent: linkExists(bridge),
  });

  const stop = async (stopOptions: { readonly removeDir?: boolean } = {}): Promise<void> => {
    if (!hasExited) {
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
      await Promise.race([exited, sleep(10_000)]);
      if (!hasExited) child.kill('SIGKILL');
      await exited;
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
    if (!stopOptions.removeDir) return;
    const stillMounted = mountsUnder(dir);
    // Never delete through a mount: what is mounted there is not ours to remove.
    if (stillMounted.length > 0) throw new Error(`containerd directory ${dir} still has mounts: ${stillMounted.join(', ')}`);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const deadline = Date.now() + (options.startupTimeoutMs ?? 30_000);
    for (;;) {
      if (hasExited) throw new Error(`containerd exited during startup:\n${tail.join('\n').slice(-4000)}`);
      try {
        await cri.version({ version: 'v1' }, { timeoutMs: 1000 });
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`containerd did not answer CRI Version in time:\n${tail.join('\n').slice(-4000)}`);
        await sleep(STARTUP_POLL_MS);
      }
    }
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }

  return { dir, address, endpoint: `unix://${address}`, snapshotter, podCidr, bridge, cri, exited, leftovers, stop };
}
