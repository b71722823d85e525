/**
 * The highly available control plane of docs/ha.md, on one machine for the HA tests: a 3-member
 * etcd cluster and several svc-apiserver processes on it, as separate machines would run them —
 * each on an address of its own (127.0.0.2, 127.0.0.3, … stand for the machines) and the same
 * secure port, sharing the cluster's CA, service-account key and admin token (copied from the
 * first server's data dir, as an operator copies them to each machine), each with its own watch
 * cache. An admin svcconfig lists every server (the client fails over among them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { writeSvcconfig } from '../../src/client/index.js';
import { startEtcdCluster, type EtcdCluster } from '../support/etcd.js';
import { startApiServerProcess, type ApiServerProcess } from './apiserver-process.js';
import { freePort } from '../support/free-port.js';

const ROOT = join(import.meta.dirname, '..', '..');

export interface HaApiServer extends ApiServerProcess {
  /** The loopback address it binds and advertises (its "machine"). */
  readonly address: string;
  readonly dataDir: string;
  /** Starts it again (after `kill`) over its data dir, address and port. */
  restart(): Promise<HaApiServer>;
}

export interface HaControlPlane {
  readonly etcd: EtcdCluster;
  /** The servers, in start order; a restarted one replaces its entry. */
  readonly servers: HaApiServer[];
  /** The secure port every server listens on. */
  readonly port: number;
  /** An admin svcconfig listing every server: `server` the first, the others in the `servers.svc.io` extension. */
  readonly svcconfig: string;
  readonly token: string;
  readonly ca: string;
  stop(): Promise<void>;
}

/** Files every server of one cluster must share: the CA (clients trust one), the front proxy's CA, the token signing key, the admin token. */
function shareClusterSecrets(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o700 });
  cpSync(join(from, 'pki'), join(to, 'pki'), { recursive: true });
  for (const file of ['admin-token', 'service-account.key']) copyFileSync(join(from, file), join(to, file));
}

/**
 * `count` API servers on a fresh 3-member etcd cluster, each under `dir`/apiserver-<i>, with
 * `extraArgs` added to each server's command line.
 */
export async function startHaControlPlane(dir: string, count: number, extraArgs: readonly string[] = []): Promise<HaControlPlane> {
  const etcd = await startEtcdCluster(3);
  const addresses = Array.from({ length: count }, (_, i) => `127.0.0.${i + 2}`);
  // One port free on every address, below the ephemeral range: each server binds it seconds later,
  // and again after a restart, where another test's port-0 listen could otherwise take it.
  const port = await freePort(addresses);
  const servers: HaApiServer[] = [];
  const start = async (i: number): Promise<HaApiServer> => {
    const address = addresses[i]!;
    const dataDir = join(dir, `apiserver-${i}`);
    const child = await startApiServerProcess(dataDir, [
      '--storage=etcd',
      `--etcd-servers=${etcd.endpoints.join(',')}`,
      `--bind-address=${address}`,
      `--advertise-address=${address}`,
      `--secure-port=${port}`,
      ...extraArgs,
    ]);
    const server: HaApiServer = { ...child, address, dataDir, restart: async () => (servers[i] = await start(i)) };
    return server;
  };
  try {
    servers.push(await start(0));
    for (let i = 1; i < count; i++) shareClusterSecrets(servers[0]!.dataDir, join(dir, `apiserver-${i}`));
    // The others in parallel: each start is mostly the process loading its modules.
    servers.push(...(await Promise.all(Array.from({ length: count - 1 }, (_, i) => start(i + 1)))));
  } catch (error) {
    await Promise.all(servers.map((s) => s.kill()));
    await etcd.stop();
    throw error;
  }
  const svcconfig = join(dir, 'admin.svcconfig');
  const first = servers[0]!;
  await writeSvcconfig(svcconfig, { name: 'svc-ha', server: first.url, servers: servers.slice(1).map((s) => s.url), caData: first.ca, token: first.token });
  return {
    etcd,
    servers,
    port,
    svcconfig,
    token: first.token,
    ca: first.ca,
    stop: async () => {
      await Promise.all(servers.map((s) => s.kill()));
      await etcd.stop();
    },
  };
}

/** A daemon (svc-controller-manager, svc-scheduler) spawned from its bin, its output kept for the test to read. */
export interface Daemon {
  readonly name: string;
  readonly pid: number;
  /** Its last lines of stderr and stdout (bounded). */
  output(): string;
  /** SIGKILL, then waits for the process to be gone. */
  kill(): Promise<void>;
  readonly exited: boolean;
}

const daemons = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of daemons) child.kill('SIGKILL');
});

/** Spawns `src/cli/<bin>.ts args…` with tsx, as `npm start` runs the bins. */
export function spawnDaemon(name: string, bin: string, args: readonly string[]): Daemon {
  const child = spawn(process.execPath, ['--import', 'tsx', `src/cli/${bin}.ts`, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  daemons.add(child);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), daemons.delete(child), resolve())));
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (lines.length > 20_000) lines.shift();
    });
  }
  return {
    name,
    pid: child.pid!,
    output: () => lines.join('\n'),
    get exited() {
      return exited;
    },
    kill: async () => {
      if (!exited) child.kill('SIGKILL');
      await exit;
    },
  };
}
