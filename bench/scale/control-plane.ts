// The control plane the scale benches run against, each daemon a child process started from
// sources with tsx: svc-apiserver (HTTPS, sqlite in the given dir; bench/controllers/server.ts),
// svc-controller-manager (every default loop) and svc-scheduler. Children are killed when this
// process exits; a daemon that dies before `stopping` is set ends the bench with its last output.
import { spawn, fork, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const repo = fileURLToPath(new URL('../..', import.meta.url));
export const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

export interface ControlPlaneOptions {
  /** Data dir parent: the server's sqlite and keys go under `<dir>/data`. */
  readonly dir: string;
  readonly managerQps: string;
  readonly managerBurst: string;
  readonly schedulerQps: string;
  readonly schedulerBurst: string;
  /** Node flags of the API server's process (e.g. `--cpu-prof`): its profile is written when it stops. */
  readonly apiserverNodeFlags?: readonly string[];
}

export interface ControlPlane {
  readonly svcconfig: string;
  readonly apiserver: ChildProcess;
  readonly manager: ChildProcess;
  readonly scheduler: ChildProcess;
  /** Starts one more daemon (`node --import tsx <script> ...args`; `script` relative to the repo, or absolute) under the same watch. */
  daemon(name: string, script: string, args: readonly string[], nodeFlags?: readonly string[]): ChildProcess;
  /** Stops every daemon (SIGTERM; the API server through IPC, so a --cpu-prof profile is written) and waits for them. */
  stop(): Promise<void>;
}

/**
 * `MANAGER_NODE_FLAGS='<flags>'`: V8 flags of the controller manager (started through tsx, it does
 * not get its bin's shebang flags). `MANAGER_CPU_PROF=<dir>`: it runs under `--cpu-prof` (its
 * profile is written when it stops). `MANAGER_SNAPSHOT_DIR=<dir>`: it writes a heap snapshot
 * there on SIGUSR2 (`snapshotManager`).
 */
function managerNodeFlags(): string[] {
  const flags = (process.env['MANAGER_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);
  const dir = process.env['MANAGER_CPU_PROF'];
  const snapshots = process.env['MANAGER_SNAPSHOT_DIR'];
  return [...flags, ...(dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []), ...(snapshots ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`] : [])];
}

/**
 * `MANAGER_TREE=<dir>`: the controller manager runs from that tree's sources (an export of another
 * commit, this tree's node_modules linked into it), the rest from this one: a manager's A/B on
 * the same bench settings.
 */
const managerScript = (): string => (process.env['MANAGER_TREE'] ? join(process.env['MANAGER_TREE'], 'src/cli/svc-controller-manager.ts') : 'src/cli/svc-controller-manager.ts');

/**
 * A heap snapshot of the manager (`MANAGER_SNAPSHOT_DIR` set): SIGUSR2, then the new file's path
 * once its size has stopped changing. The snapshot's full collection first makes it the live heap.
 */
export async function snapshotManager(plane: ControlPlane): Promise<string | undefined> {
  const dir = process.env['MANAGER_SNAPSHOT_DIR'];
  if (!dir) return undefined;
  const { readdirSync, statSync } = await import('node:fs');
  const before = new Set(readdirSync(dir));
  plane.manager.kill('SIGUSR2');
  let last = -1;
  for (let stable = 0; stable < 3; ) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const file = readdirSync(dir).find((name) => name.endsWith('.heapsnapshot') && !before.has(name));
    const size = file ? statSync(join(dir, file)).size : -1;
    stable = size > 0 && size === last ? stable + 1 : 0;
    last = size;
    if (stable === 3) return join(dir, file!);
  }
  return undefined;
}

/** `MANAGER_ARGS='<flags>'`: more flags for svc-controller-manager (e.g. `--concurrent-replicaset-syncs=20`). */
function managerExtraArgs(): string[] {
  return (process.env['MANAGER_ARGS'] ?? '').split(' ').filter(Boolean);
}

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const children: ChildProcess[] = [];
  let stopping = false;
  // First of the exit handlers: a bench that removes its temp dir on exit (registered before
  // this) must not spend that time — seconds for a 5,000-node run's gigabytes — with the daemons
  // still running, or leave them running if it is killed meanwhile.
  process.prependOnceListener('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });

  const apiserver = fork(join(repo, 'bench/controllers/server.ts'), [join(options.dir, 'data')], {
    execArgv: ['--import', 'tsx', ...(options.apiserverNodeFlags ?? [])],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  children.push(apiserver);
  const { svcconfig } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: apiserver.stdout! }).once('line', resolve))) as { svcconfig: string };
  log(`svc-apiserver pid ${apiserver.pid} (sqlite)`);

  const daemon = (name: string, script: string, args: readonly string[], nodeFlags: readonly string[] = []): ChildProcess => {
    const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', resolve(repo, script), ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: repo });
    children.push(child);
    let last = '';
    const keep = (chunk: Buffer) => {
      last = (last + chunk.toString()).slice(-4000);
      if (process.env['DAEMON_LOGS']) process.stderr.write(chunk.toString().replace(/^(?=.)/gm, `  ${name}| `));
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('exit', (code, signal) => {
      if (!stopping) {
        log(`${name} exited (${code ?? signal}); its last output:\n${last}`);
        process.exit(1);
      }
    });
    log(`${name} pid ${child.pid}`);
    return child;
  };

  const manager = daemon('svc-controller-manager', managerScript(), [
    `--svcconfig=${svcconfig}`,
    '--secure-port=0',
    '--leader-elect=false',
    `--svc-api-qps=${options.managerQps}`,
    `--svc-api-burst=${options.managerBurst}`,
    `--service-account-private-key-file=${join(options.dir, 'data', 'service-account.key')}`,
    ...managerExtraArgs(),
  ], managerNodeFlags());
  const scheduler = daemon('svc-scheduler', 'src/cli/svc-scheduler.ts', [
    `--svcconfig=${svcconfig}`,
    '--secure-port=0',
    '--leader-elect=false',
    `--svc-api-qps=${options.schedulerQps}`,
    `--svc-api-burst=${options.schedulerBurst}`,
  ]);

  return {
    svcconfig,
    apiserver,
    manager,
    scheduler,
    daemon,
    async stop() {
      stopping = true;
      const exited = (child: ChildProcess) => (child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve())));
      const others = children.filter((child) => child !== apiserver);
      for (const child of others) child.kill('SIGTERM');
      await Promise.race([Promise.all(others.map(exited)), new Promise((resolve) => setTimeout(resolve, 10_000))]);
      apiserver.send('stop');
      await Promise.race([exited(apiserver), new Promise((resolve) => setTimeout(resolve, 20_000))]);
    },
  };
}
