/**
 * Real etcd processes for tests and benchmarks: one member, or a statically bootstrapped
 * cluster, on free loopback ports with throw-away data directories. etcd is required: when the
 * binary is missing these helpers throw (suites fail, they never skip).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import etcd3 from 'etcd3';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from './free-port.js';

export interface EtcdMember {
  readonly name: string;
  /** Client URL, `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Whether the process is still running. */
  readonly alive: boolean;
  /** SIGKILL, now; the data directory stays until `stop()` (of the member or its cluster). */
  kill(): void;
  /** Kills the process, waits for it to exit and removes its data directory. */
  stop(): Promise<void>;
  /** Starts a killed member again over its data directory and ports; resolves once healthy. */
  restart(): Promise<void>;
}

export interface EtcdCluster {
  readonly members: readonly EtcdMember[];
  /** Every member's client URL, in member order. */
  readonly endpoints: readonly string[];
  stop(): Promise<void>;
}

const ETCD_BIN = process.env.ETCD_BIN ?? 'etcd';
const STARTUP_TIMEOUT_MS = 30_000;

/** Every etcd this process started, and data directory not yet removed, so none outlives a dead test run. */
const running = new Set<ChildProcess>();
const dataDirs = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
    for (const dir of dataDirs) {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // best effort while exiting
      }
    }
  });
}

let etcdChecked = false;

function requireEtcd(): void {
  if (etcdChecked) return;
  const probe = spawnSync(ETCD_BIN, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `etcd is required to run this suite but \`${ETCD_BIN} --version\` failed (${probe.error?.message ?? `exit ${probe.status}`}). ` +
        'Install it (Debian: apt-get install etcd-server) or set ETCD_BIN.',
    );
  }
  etcdChecked = true;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface MemberSpec {
  name: string;
  clientPort: number;
  peerPort: number;
}

class Member implements EtcdMember {
  private exited = true;
  private exitPromise: Promise<void> = Promise.resolve();
  private readonly output: string[] = [];
  private child!: ChildProcess;
  private removed = false;

  constructor(
    readonly name: string,
    readonly endpoint: string,
    private readonly dataDir: string,
    private readonly args: readonly string[],
  ) {
    dataDirs.add(dataDir);
    this.spawn();
  }

  private spawn(): void {
    const child = spawn(ETCD_BIN, this.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    installExitHook();
    this.child = child;
    this.exited = false;
    running.add(child);
    this.exitPromise = new Promise<void>((resolve) => {
      child.once('exit', () => {
        this.exited = true;
        running.delete(child);
        resolve();
      });
    });
    // Keep the last lines of output for error messages; reading also keeps the pipe from filling.
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.output.push(chunk);
      if (this.output.length > 50) this.output.shift();
    });
    child.stdout?.resume();
  }

  async restart(): Promise<void> {
    if (this.removed) throw new Error(`etcd ${this.name} was stopped; its data is gone`);
    this.kill();
    await this.exitPromise;
    this.spawn();
    await this.waitHealthy(Date.now() + STARTUP_TIMEOUT_MS);
  }

  get alive(): boolean {
    return !this.exited;
  }

  get log(): string {
    return this.output.join('').slice(-4000);
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }

  async stop(): Promise<void> {
    this.removed = true;
    this.kill();
    await this.exitPromise;
    await rm(this.dataDir, { recursive: true, force: true });
    dataDirs.delete(this.dataDir);
  }

  /** Resolves when /health answers `true` (the member has a leader); rejects if etcd exits. */
  async waitHealthy(deadline: number): Promise<void> {
    for (;;) {
      if (this.exited) throw new Error(`etcd ${this.name} exited during startup:\n${this.log}`);
      try {
        const response = await fetch(`${this.endpoint}/health`, { signal: AbortSignal.timeout(1000) });
        const body = (await response.json()) as { health?: string };
        if (body.health === 'true') return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`etcd ${this.name} did not become healthy in time:\n${this.log}`);
      await sleep(50);
    }
  }
}

async function spawnMember(spec: MemberSpec, initialCluster: string, token: string): Promise<Member> {
  const dataDir = await mkdtemp(join(tmpdir(), `etcd-${spec.name}-`));
  const clientUrl = `http://127.0.0.1:${spec.clientPort}`;
  const peerUrl = `http://127.0.0.1:${spec.peerPort}`;
  const args = [
    '--name', spec.name,
    '--data-dir', dataDir,
    '--listen-client-urls', clientUrl,
    '--advertise-client-urls', clientUrl,
    '--listen-peer-urls', peerUrl,
    '--initial-advertise-peer-urls', peerUrl,
    '--initial-cluster', initialCluster,
    '--initial-cluster-state', 'new',
    '--initial-cluster-token', token,
    '--logger', 'zap',
    '--log-level', 'error',
    '--log-outputs', 'stderr',
  ];
  return new Member(spec.name, clientUrl, dataDir, args);
}

async function startMembers(count: number): Promise<Member[]> {
  const ports = await freePorts(count * 2);
  const token = `test-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const specs: MemberSpec[] = [];
  for (let i = 0; i < count; i++) specs.push({ name: `m${i}`, clientPort: ports[2 * i]!, peerPort: ports[2 * i + 1]! });
  const initialCluster = specs.map((s) => `${s.name}=http://127.0.0.1:${s.peerPort}`).join(',');
  const members: Member[] = [];
  try {
    for (const spec of specs) members.push(await spawnMember(spec, initialCluster, token));
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    await Promise.all(members.map((m) => m.waitHealthy(deadline)));
    return members;
  } catch (error) {
    await Promise.all(members.map((m) => m.stop()));
    throw error;
  }
}

/** A port taken between picking and binding makes etcd exit at startup: pick new ports and retry. */
async function startWithRetry(count: number): Promise<Member[]> {
  requireEtcd();
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startMembers(count);
    } catch (error) {
      lastError = error;
      if (!/address already in use/i.test(String(error))) break;
    }
  }
  throw lastError;
}

/** One etcd member on free loopback ports, healthy when this resolves. */
export async function startEtcd(): Promise<EtcdMember> {
  const [member] = await startWithRetry(1);
  return member!;
}

/** A `size`-member cluster on loopback (static bootstrap), healthy (has a leader) when this resolves. */
export async function startEtcdCluster(size = 3): Promise<EtcdCluster> {
  if (!Number.isInteger(size) || size < 1) throw new Error(`cluster size must be a positive integer, got ${size}`);
  const members = await startWithRetry(size);
  return {
    members,
    endpoints: members.map((m) => m.endpoint),
    stop: async () => {
      await Promise.all(members.map((m) => m.stop()));
    },
  };
}

/** The member etcd reports as leader (asked of every member; the first that answers decides). */
export async function findLeader(cluster: EtcdCluster): Promise<EtcdMember> {
  for (const member of cluster.members) {
    if (!member.alive) continue;
    const client = new etcd3.Etcd3({ hosts: [member.endpoint] });
    try {
      const status = await client.maintenance.status();
      for (const candidate of cluster.members) {
        if (!candidate.alive) continue;
        const probe = new etcd3.Etcd3({ hosts: [candidate.endpoint] });
        try {
          if ((await probe.maintenance.status()).header.member_id === status.leader) return candidate;
        } finally {
          probe.close();
        }
      }
    } catch {
      // try the next member
    } finally {
      client.close();
    }
  }
  throw new Error('no member reports a leader');
}
