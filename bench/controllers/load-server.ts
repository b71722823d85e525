// Child process of bench/controllers/latency.ts: a svc/testing cluster (API server in-process on
// a memory store, HTTPS loopback) filled with OBJECTS source ConfigMaps, and the load generator,
// so neither shares the measured controller's event loop. Prints the connection as one JSON
// line once filled; on the IPC message {rate, seconds, via} changes one ConfigMap's annotation
// `bench/sent` (its send time, ms since the epoch) `rate` times a second, round robin, and
// answers {sent, errors, seconds}; exits on "stop". `via: 'api'` sends each change as a PATCH
// through the API server; `via: 'store'` writes it to the store (compare-and-swap on the stored
// JSON), which makes the same watch event for the controller without the API write path's cost.
import { builtin } from '../../src/client/index.js';
import { startTestCluster } from '../../src/testing/index.js';
import { fillSources } from './fill.js';

const objects = Number(process.argv[2]);
const namespace = process.argv[3]!;
const cluster = await startTestCluster({ namespaces: [namespace] });
await fillSources(cluster.client, namespace, objects);
const writer = cluster.newClient({ userAgent: 'load' });

const IN_FLIGHT = 64;

interface Load {
  readonly rate: number;
  readonly seconds: number;
  readonly via: 'api' | 'store';
}

const annotate = (object: { metadata: { annotations?: Record<string, string> } }): void => {
  object.metadata.annotations = { ...object.metadata.annotations, 'bench/sent': String(performance.timeOrigin + performance.now()) };
};

/** One change of `name`, through the API server or straight into the store. */
async function change(name: string, via: Load['via']): Promise<void> {
  if (via === 'api') {
    const patch = { metadata: { annotations: {} as Record<string, string> } };
    annotate(patch);
    await writer.patch(builtin.configMaps, name, patch, { namespace });
    return;
  }
  const key = `${cluster.store.prefix}core/configmaps/${namespace}/${name}`;
  for (;;) {
    const stored = await cluster.store.get(key);
    if (!stored) throw new Error(`${key} is not stored`);
    const object = JSON.parse(Buffer.from(stored.value).toString('utf8')) as { metadata: { annotations?: Record<string, string> } };
    annotate(object);
    try {
      await cluster.store.update(key, Buffer.from(JSON.stringify(object)), stored.modRevision);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'Conflict') throw error;
    }
  }
}

async function load({ rate, seconds, via }: Load): Promise<{ sent: number; errors: number; seconds: number; maxInFlight: number }> {
  const total = rate * seconds;
  const tickMs = 5;
  const started = performance.now();
  let sent = 0;
  let errors = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let next = 0;
  let timer: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve) => {
    const tick = () => {
      // Paced by the clock, not by answers, as changes arrive on a cluster.
      // At most IN_FLIGHT patches outstanding: a server that cannot keep up shows as a lower rate
      // sent, not as a pile of requests refused by its flow control.
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
      while (sent < due && inFlight < IN_FLIGHT) {
        const name = `cm-${next++ % objects}`;
        sent++;
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        change(name, via)
          .catch((error: unknown) => {
            if (errors++ === 0) process.stderr.write(`load: first error: ${(error as Error).message}\n`);
          })
          .finally(() => {
            inFlight--;
            if (sent === total && inFlight === 0) resolve();
            else if (inFlight === IN_FLIGHT - 1) tick();
          });
      }
      if (sent < total && !timer) timer = setTimeout(() => ((timer = undefined), tick()), tickMs);
    };
    tick();
  });
  return { sent, errors, seconds: (performance.now() - started) / 1000, maxInFlight };
}

process.on('message', (message: unknown) => {
  if (message === 'stop') {
    void cluster.stop().then(() => process.exit(0));
    return;
  }
  void load(message as Load).then((result) => process.send!(result));
});
process.stdout.write(`${JSON.stringify(cluster.connection)}\n`);
