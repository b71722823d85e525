// Child process of bench/controllers/manager-scale.ts for VIA=api: the pod update load as
// merge-patches through the API server, in a process of its own so its requests and timers share
// the event loop of neither the manager nor the driver. Receives `{ svcconfig, ...PodUpdateJob }`
// over IPC, patches each pod's SENT_ANNOTATION to its send time (paced-load.ts: at most IN_FLIGHT
// requests open; what the server cannot take in time is dropped), replies the PodUpdateResult
// and exits.
import { builtin, Client } from '../../src/client/index.js';
import { pacedUpdates, SENT_ANNOTATION, sentNow, type PodUpdateJob } from './paced-load.js';

const IN_FLIGHT = 256;

const job = await new Promise<PodUpdateJob & { svcconfig: string }>((resolve) => process.once('message', (message) => resolve(message as PodUpdateJob & { svcconfig: string })));
const client = await Client.fromSvcconfig(job.svcconfig, { userAgent: 'bench-pod-updates' });
const result = await pacedUpdates(
  job,
  async (pod) => {
    await client.patch(builtin.pods, pod, { metadata: { annotations: { [SENT_ANNOTATION]: sentNow() } } }, { namespace: job.namespace });
  },
  IN_FLIGHT,
);
await client.destroy();
process.send!(result, () => process.exit(0));
