// A CPU profile of another Node process over a window of its life, through its inspector:
// SIGUSR1 opens it on 127.0.0.1:9229, and the Chrome DevTools Protocol over WebSocket drives
// the profiler. For a daemon's steady state, which `--cpu-prof` (start to exit) cannot isolate.
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'undici';

/** Profiles process `pid` for `ms` and writes the profile (a .cpuprofile) to `file`. */
export async function profileProcess(pid: number, ms: number, file: string): Promise<void> {
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
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const mine = ++id;
      const onMessage = (event: { data: unknown }) => {
        const reply = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
        if (reply.id !== mine) return;
        socket.removeEventListener('message', onMessage);
        resolve(reply.result ?? {});
      };
      socket.addEventListener('message', onMessage);
      socket.send(JSON.stringify({ id: mine, method }));
    });
  await call('Profiler.enable');
  await call('Profiler.start');
  await sleep(ms);
  const { profile } = await call('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  socket.close();
}
