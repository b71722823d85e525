// Child process of bench/controllers/latency.ts: a svc/testing cluster (API server in-process on
// a memory store, HTTPS loopback) filled with OBJECTS source ConfigMaps, and the load generator,
// so neither shares the measured controller's event loop. Prints the connection as one JSON
// line once filled; on the IPC message {rate, seconds} patches one ConfigMap's annotation
// `bench/sent` (its send time, ms since the epoch) `rate` times a second, round robin, and
// answers {sent, errors, seconds}; exits on "stop".
import { builtin } from '../../src/client/index.js';
import { startTestCluster } from '../../src/testing/index.js';
import { fillSources } from './fill.js';

const objects = Number(process.argv[2]);
const namespace = process.argv[3]!;
const cluster = await startTestCluster({ namespaces: [namespace] });
await fillSources(cluster.client, namespace, objects);
const writer = cluster.newClient({ userAgent: 'load' });

interface Load {
  readonly rate: number;
  readonly seconds: number;
}

async function load({ rate, seconds }: Load): Promise<{ sent: number; errors: number; seconds: number; maxInFlight: number }> {
  const total = rate * seconds;
  const tickMs = 5;
  const started = performance.now();
  let sent = 0;
  let errors = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      // Paced by the clock, not by answers: an open loop, as watch events arrive on a cluster.
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
      while (sent < due) {
        const name = `cm-${next++ % objects}`;
        sent++;
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        writer
          .patch(builtin.configMaps, name, { metadata: { annotations: { 'bench/sent': String(performance.timeOrigin + performance.now()) } } }, { namespace })
          .catch(() => void errors++)
          .finally(() => {
            inFlight--;
            if (sent === total && inFlight === 0) resolve();
          });
      }
      if (sent < total) setTimeout(tick, tickMs);
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
