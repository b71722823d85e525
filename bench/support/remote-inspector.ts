// A CPU profile or a heap snapshot of another Node process, through its inspector: SIGUSR1
// opens it on 127.0.0.1:9229, and the Chrome DevTools Protocol over WebSocket drives it. For a
// daemon's steady state, which `--cpu-prof` (start to exit) cannot isolate.
import { createWriteStream, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'undici';

interface Inspector {
  /** Sends one command and resolves with its result. */
  call(method: string): Promise<Record<string, unknown>>;
  /** Calls `listener` with the params of every event named `method`. */
  on(method: string, listener: (params: Record<string, unknown>) => void): void;
  close(): void;
}

/** Opens process `pid`'s inspector and connects to its first target. */
async function inspect(pid: number): Promise<Inspector> {
  process.kill(pid, 'SIGUSR1');
  let targets: Array<{ webSocketDebuggerUrl: string }> | undefined;
  for (let attempt = 0; attempt < 50 && !targets; attempt += 1) {
    await sleep(100);
    targets = await fetch('http://127.0.0.1:9229/json/list').then((r) => r.json() as Promise<Array<{ webSocketDebuggerUrl: string }>>, () => undefined);
  }
  if (!targets?.[0]) throw new Error(`process ${pid} opened no inspector`);
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  let id = 0;
  const replies = new Map<number, (result: Record<string, unknown>) => void>();
  const listeners = new Map<string, (params: Record<string, unknown>) => void>();
  socket.addEventListener('message', (event: { data: unknown }) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown>; method?: string; params?: Record<string, unknown> };
    if (message.id !== undefined) replies.get(message.id)?.(message.result ?? {});
    else if (message.method) listeners.get(message.method)?.(message.params ?? {});
  });
  return {
    call: (method) =>
      new Promise((resolve) => {
        const mine = ++id;
        replies.set(mine, (result) => {
          replies.delete(mine);
          resolve(result);
        });
        socket.send(JSON.stringify({ id: mine, method }));
      }),
    on: (method, listener) => listeners.set(method, listener),
    close: () => socket.close(),
  };
}

/** Profiles process `pid` for `ms` and writes the profile (a .cpuprofile) to `file`. */
export async function profileProcess(pid: number, ms: number, file: string): Promise<void> {
  const inspector = await inspect(pid);
  await inspector.call('Profiler.enable');
  await inspector.call('Profiler.start');
  await sleep(ms);
  const { profile } = await inspector.call('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  inspector.close();
}

/** Writes a heap snapshot (a .heapsnapshot) of process `pid` to `file`. */
export async function snapshotProcess(pid: number, file: string): Promise<void> {
  const inspector = await inspect(pid);
  const out = createWriteStream(file);
  inspector.on('HeapProfiler.addHeapSnapshotChunk', (params) => out.write(String(params['chunk'])));
  await inspector.call('HeapProfiler.takeHeapSnapshot');
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  inspector.close();
}
