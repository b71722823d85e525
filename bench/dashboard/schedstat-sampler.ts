// bench:dashboard's run-queue sampler, a worker thread of its own: every INTERVAL ms it reads
// /proc/<pid>/task/<tid>/schedstat of the threads it was given — the CPU time each ran and the
// time each waited runnable for a CPU (both cumulative, ns) — and stamps the sample (epoch ms).
// A frame that came late while the renderer's threads waited for a CPU shows as wait growing
// across it; one that came late while they ran shows as run time. On "stop" posts the samples.
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

export interface SampledThread {
  readonly label: string;
  readonly path: string;
}

const { threads, intervalMs } = workerData as { threads: SampledThread[]; intervalMs: number };
const port = parentPort!;
// Samples on time whatever the set-up (BROWSER_SETUP=nice lowers this process's threads): this
// thread only (pid 0 is the calling thread on Linux), when allowed (root); it reads ~20 small files a tick.
try {
  setPriority(0, -10);
} catch {
  // not root: sampled at the process's own priority
}
/** Per sample: its time (epoch ms), then run and wait (ns) of each thread in order; -1 once a thread is gone. */
const samples: number[][] = [];
const read = (): void => {
  const sample = [performance.timeOrigin + performance.now()];
  for (const thread of threads) {
    try {
      const [run, wait] = readFileSync(thread.path, 'utf8').split(' ');
      sample.push(Number(run), Number(wait));
    } catch {
      sample.push(-1, -1);
    }
  }
  samples.push(sample);
};
read();
const timer = setInterval(read, intervalMs);
port.once('message', () => {
  clearInterval(timer);
  read();
  port.postMessage({ threads: threads.map((t) => t.label), samples });
});
port.postMessage('ready');
