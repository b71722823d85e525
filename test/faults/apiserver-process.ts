/**
 * svc-apiserver as a real child process for the fault tests: started from its bin over HTTPS on a
 * free loopback port, with the admin token and CA it writes into its data dir, killed with
 * SIGKILL and started again over the same data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent } from 'undici';

const ROOT = join(import.meta.dirname, '..', '..');
const STARTUP_GUARD_MS = 60_000;

/** Every child still running, killed if the test process exits first. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * SIGKILLs every server this process started that still runs, for a suite's afterAll: a test that
 * timed out may have started one its own clean-up never learnt of.
 */
export function killAllApiServers(): void {
  for (const child of running) child.kill('SIGKILL');
}

export interface ApiServerProcess {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  readonly token: string;
  readonly ca: string;
  /** An undici dispatcher that trusts the server's CA. */
  readonly dispatcher: Agent;
  readonly pid: number;
  /** SIGKILL, then waits for the process to be gone. */
  kill(): Promise<void>;
  /** SIGTERM (a clean stop), then waits for the process to be gone. */
  stop(): Promise<void>;
}

/** Starts `svc-apiserver --data-dir=<dataDir> …` and resolves once it prints its listening line. */
export async function startApiServerProcess(dataDir: string, args: readonly string[] = []): Promise<ApiServerProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/svc-apiserver.ts', `--data-dir=${dataDir}`, '--bind-address=127.0.0.1', '--secure-port=0', ...args],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => (running.delete(child), resolve())));
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    // Only the tail matters for a failure message; bounded.
    stderr = (stderr + chunk).slice(-8192);
  });
  const lines = createInterface({ input: child.stdout! });
  const listenUrl = await new Promise<string>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error(`svc-apiserver did not start: ${stderr}`)), STARTUP_GUARD_MS);
    lines.on('line', (line) => {
      const match = /listening on (https:\/\/\S+)/.exec(line);
      if (match) {
        clearTimeout(guard);
        resolve(match[1]!);
      }
    });
    void exited.then(() => {
      clearTimeout(guard);
      reject(new Error(`svc-apiserver exited before listening: ${stderr}`));
    });
  });
  const url = listenUrl;
  const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
  const dispatcher = new Agent({ connect: { ca }, connections: 64 });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    await dispatcher.destroy();
  };
  return { url, token, ca, dispatcher, pid: child.pid!, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}

export interface Answer {
  readonly status: number;
  readonly body: any;
}

/** One JSON request with the admin token; rejects only when no answer came (connection lost). */
export async function call(server: ApiServerProcess, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${server.token}`,
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    // undici's own option: fetch's init type does not list it.
    ...({ dispatcher: server.dispatcher } as object),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed };
}
