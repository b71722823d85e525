// bench:dashboard's writer, a worker thread of its own: label patches to the bench pods at a
// rate, on its own event loop and client, so the driver's JSON and HTTP work does not queue
// behind the API server it measures (which runs on the main thread). Reports every answered
// patch's resourceVersion with when it was sent and answered (epoch ms), in batches.
import { parentPort, workerData } from 'node:worker_threads';
import { builtin, Client, type ConnectionOptions } from '../../src/client/index.js';

interface WriterData {
  readonly connection: ConnectionOptions;
  readonly names: readonly string[];
  readonly rate: number;
  readonly seconds: number;
  readonly concurrency: number;
  /** This writer's share: it patches names[i] for i ≡ offset (mod stride). */
  readonly offset: number;
  readonly stride: number;
}

const data = workerData as WriterData;
const client = new Client(data.connection);
const port = parentPort!;
let batch: (string | number)[] = [];
const flush = (): void => {
  if (batch.length > 0) port.postMessage({ kind: 'answered', batch });
  batch = [];
};
const flusher = setInterval(flush, 250);

// Loaded (tsx compiled the client): the driver starts every writer's clock at once.
port.postMessage({ kind: 'ready' });
await new Promise<void>((resolve) => port.once('message', () => resolve()));
const start = performance.now();
let sent = 0;
let inflight = 0;
let failed = 0;
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const elapsed = (performance.now() - start) / 1000;
    if (elapsed >= data.seconds) {
      clearInterval(timer);
      const wait = setInterval(() => inflight === 0 && (clearInterval(wait), resolve()), 10);
      return;
    }
    while (sent < elapsed * data.rate && inflight < data.concurrency) {
      const index = (sent * data.stride + data.offset) % data.names.length;
      const name = data.names[index]!;
      sent++;
      inflight++;
      const sentAt = Date.now();
      void client
        .patch(builtin.pods, name, { metadata: { labels: { tick: `${data.offset}-${sent}` } } }, { namespace: 'bench' })
        .then(
          (pod) => void batch.push(pod.metadata.resourceVersion!, sentAt, Date.now()),
          () => void failed++,
        )
        .finally(() => inflight--);
    }
  }, 5);
});
clearInterval(flusher);
flush();
port.postMessage({ kind: 'done', sent, failed });
await client.destroy();
