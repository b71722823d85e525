import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** The bearer token bench-server.mjs accepts. */
export const BENCH_TOKEN = 'bench-token';

export interface BenchServer {
  readonly origin: string;
  readonly child: ChildProcess;
  /** ms from process start to listening (includes the watch caches' first list). */
  readonly startMs: number;
  /** The server's memoryUsage() after a full gc. */
  memory(): Promise<NodeJS.MemoryUsage>;
  /** The server's event-loop delay since the last call (p99 and max, ms). */
  loopDelay(): Promise<{ p99: number; max: number }>;
  stop(): Promise<void>;
}

/** Starts bench-server.mjs (run `npm run build` first) over the sqlite database at `db` in a child process. */
export async function startBenchServer(db: string): Promise<BenchServer> {
  // BENCH_PROFILE=<dir> writes the server's CPU profile there (open it in Chrome's DevTools).
  const v8flags = process.env['BENCH_NODE_FLAGS'] ? process.env['BENCH_NODE_FLAGS'].split(' ') : [];
  const profile = process.env['BENCH_PROFILE'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_PROFILE']}`] : [];
  const child = spawn(process.execPath, ['--expose-gc', ...v8flags, ...profile, new URL('./bench-server.mjs', import.meta.url).pathname, db], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  // A benchmark that throws must not leave its server running.
  process.once('exit', () => child.kill());
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  const { port, startMs } = JSON.parse(first) as { port: number; startMs: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    child,
    startMs,
    memory: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve((m as { memory: NodeJS.MemoryUsage }).memory));
        child.send('memory');
      }),
    loopDelay: () =>
      new Promise((resolve) => {
        child.once('message', (m) => {
          const { loopDelayP99Ms, loopDelayMaxMs } = m as { loopDelayP99Ms: number; loopDelayMaxMs: number };
          resolve({ p99: loopDelayP99Ms, max: loopDelayMaxMs });
        });
        child.send('memory');
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}
