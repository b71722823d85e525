// bench:endpointslice's flipper, a worker thread of the load process (endpointslice-load.ts):
// turns random pods' Ready condition over (a merge patch of pods/status) at a rate, IN_FLIGHT at
// once, never two flips of one pod at once, on its own event loop and client, so neither the
// observer's decoding nor the loop's work delays a patch or its answer's timestamp. A pod flipped
// less than COOLDOWN_MS ago is not picked again (a second flip before the first is visible would
// hide it). Posts each answered flip as [pod index, ready (1/0), sent at, answered at] (epoch ms),
// in batches every 20 ms.
import { parentPort, workerData } from 'node:worker_threads';
import { builtin, Client } from '../../src/client/index.js';

interface FlipperData {
  readonly svcconfig: string;
  readonly namespace: string;
  readonly pods: number;
  readonly rate: number;
  readonly seconds: number;
  readonly inFlight: number;
  readonly cooldownMs: number;
  /** Each pod's readiness now (the flipper turns it over and keeps it). */
  readonly ready: boolean[];
}

const data = workerData as FlipperData;
const client = await Client.fromSvcconfig(data.svcconfig, { userAgent: 'flipper' });
const port = parentPort!;
const epoch = (): number => performance.timeOrigin + performance.now();
let batch: number[] = [];
const flush = (): void => {
  if (batch.length > 0) port.postMessage({ kind: 'answered', batch });
  batch = [];
};
const flusher = setInterval(flush, 20);

const ready = data.ready;
const busy = new Set<number>();
/** When each pod was last flipped (epoch ms). */
const flippedAt = new Float64Array(data.pods).fill(-Infinity);
const count = Math.round(data.rate * data.seconds);
let next = 0;
let failed = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: data.inFlight }, async () => {
    while (next < count) {
      const n = next++;
      const wait = started + (n * 1000) / data.rate - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const sentAt = epoch();
      let i = Math.floor(Math.random() * data.pods);
      while (busy.has(i) || sentAt - flippedAt[i]! < data.cooldownMs) i = Math.floor(Math.random() * data.pods);
      busy.add(i);
      flippedAt[i] = sentAt;
      const value = !ready[i];
      try {
        await client.patchStatus(builtin.pods, `p-${i}`, { status: { conditions: [{ type: 'Ready', status: value ? 'True' : 'False' }] } }, { namespace: data.namespace });
        ready[i] = value;
        batch.push(i, value ? 1 : 0, sentAt, epoch());
      } catch {
        failed++;
      }
      busy.delete(i);
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
clearInterval(flusher);
flush();
port.postMessage({ kind: 'done', sent: count, failed, seconds, ready });
