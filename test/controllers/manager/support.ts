// Shared by the controller manager suites: a real svc-apiserver over HTTPS in-process (memory
// store) with its admin svcconfig, and managers started from command lines against it.
import type { ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type RunningApiServer } from '../../../src/cli/apiserver-command.js';
import { startControllerManagerFromArgs } from '../../../src/cli/controller-manager-command.js';
import { silentLog, type ManagerLog, type RunningControllerManager } from '../../../controllers/manager/index.js';
import { Client, builtin } from '../../../src/client/index.js';

export interface Cluster {
  readonly api: RunningApiServer;
  readonly dir: string;
  readonly client: Client;
  /** A manager against this API server; closed by `close()`. `ANY_SECURE_PORT` among `extra` serves on a free port. */
  manager(extra?: string[], log?: ManagerLog): Promise<RunningControllerManager>;
  /** The Lease's holder (undefined: none or no Lease). */
  holder(name?: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cm-'));
  const api = await startApiServer(['--storage=memory', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dir}`]);
  const client = await Client.fromSvcconfig(api.svcconfigPath);
  const managers: RunningControllerManager[] = [];
  return {
    api,
    dir,
    client,
    async manager(extra = [], log = silentLog) {
      const any = extra.includes(ANY_SECURE_PORT);
      const argv = [`--svcconfig=${api.svcconfigPath}`, '--secure-port=0', ...extra.filter((arg) => arg !== ANY_SECURE_PORT)];
      const m = await startControllerManagerFromArgs(argv, log, { freeSecurePort: any });
      managers.push(m);
      return m;
    },
    async holder(name = 'svc-controller-manager') {
      try {
        const lease = await client.get(builtin.leases, name, { namespace: 'svc-system' });
        return lease.spec?.holderIdentity || undefined;
      } catch (error) {
        // No Lease yet; any other failure is the test's to see, not a missing holder.
        if ((error as { code?: unknown }).code === 404) return undefined;
        throw error;
      }
    },
    async close() {
      await Promise.all(managers.map((m) => m.close()));
      await client.destroy();
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves when `predicate` holds (checked every 20 ms); fails after a generous guard. */
export async function eventually(predicate: () => boolean | Promise<boolean>, what: string, guardMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!(await predicate())) {
    if (Date.now() - start > guardMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Short election durations for tests: 2s lease, 1s renew deadline, 200ms retry. */
export const FAST_ELECTION = ['--leader-elect-lease-duration=2s', '--leader-elect-renew-deadline=1s', '--leader-elect-retry-period=200ms'];

/**
 * In `manager()`'s flags: serve on a port the system picks, as `svc up` does (`--secure-port=0`
 * means "off"); `serving.port` says which. A port picked free beforehand and bound by the manager
 * later can be taken in between by another test's server, failing the start.
 */
export const ANY_SECURE_PORT = '--secure-port=any';

/**
 * Resolves when a child process writes `text` (on stdout or stderr); rejects, with what it wrote,
 * if it exits first. A readiness signal rather than a guard on the clock: starting a manager
 * under tsx on a loaded machine takes as long as it takes (the test's own timeout bounds it).
 */
export function output(child: ChildProcessByStdio<null, Readable, Readable>, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let written = '';
    const seen = (chunk: Buffer): void => {
      written += chunk.toString();
      if (!written.includes(text)) return;
      done();
      resolve();
    };
    const exited = (code: number | null, signal: NodeJS.Signals | null): void => {
      done();
      reject(new Error(`the process exited (${signal ?? code}) before writing ${JSON.stringify(text)}:\n${written}`));
    };
    const done = (): void => {
      child.stdout.off('data', seen);
      child.stderr.off('data', seen);
      child.off('exit', exited);
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('exit', exited);
  });
}
