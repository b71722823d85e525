// Child process of bench/controllers/manager-scale.ts: the pod update load, in a process of its
// own so its requests and timers share the event loop of neither the manager nor the driver.
// Receives `{ svcconfig, namespace, pods, rate, seconds }` over IPC, merge-patches an annotation
// of the pods round robin at `rate` a second for `seconds` (at most IN_FLIGHT requests open: when
// the server cannot keep up, the rate achieved is lower and is what is reported), then replies
// `{ sent, failed, seconds }` and exits.
import { builtin, Client } from '../../src/client/index.js';

interface Job {
  svcconfig: string;
  namespace: string;
  pods: string[];
  rate: number;
  seconds: number;
}

const IN_FLIGHT = 256;
const TICK_MS = 10;

const job = await new Promise<Job>((resolve) => process.once('message', (message) => resolve(message as Job)));
const client = await Client.fromSvcconfig(job.svcconfig, { userAgent: 'bench-pod-updates' });
let sent = 0;
let failed = 0;
let open = 0;
let next = 0;
const patchOne = async (): Promise<void> => {
  const name = job.pods[next++ % job.pods.length]!;
  open++;
  try {
    await client.patch(builtin.pods, name, { metadata: { annotations: { 'bench/tick': String(next) } } }, { namespace: job.namespace });
    sent++;
  } catch {
    failed++;
  } finally {
    open--;
  }
};
const t0 = performance.now();
const end = t0 + job.seconds * 1_000;
let due = 0; // patches owed so far by the schedule
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const now = performance.now();
    if (now >= end) {
      clearInterval(timer);
      resolve();
      return;
    }
    const owed = Math.floor(((now - t0) / 1_000) * job.rate);
    // Patches the server could not take in time are dropped, not sent in a burst later.
    while (due < owed && open < IN_FLIGHT) {
      due++;
      void patchOne();
    }
    due = owed;
  }, TICK_MS);
});
while (open > 0) await new Promise((resolve) => setTimeout(resolve, 10));
const seconds = (performance.now() - t0) / 1_000;
await client.destroy();
process.send!({ sent, failed, seconds }, () => process.exit(0));
