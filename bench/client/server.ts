// Child process of bench/client/informer.ts: a real svc-apiserver (HTTPS, its own CA, the admin
// token; memory storage so that the disk does not pace the writes) in a data dir given as argv[2].
// Prints `{"svcconfig": <path>}` once it listens; exits on the IPC message "stop". The message
// "profile" starts a CPU profile, written to $SERVER_PROFILE at the stop.
import { writeFileSync } from 'node:fs';
// As a cluster whose serviceaccount loop has run: `default` accounts in the system namespaces.
import { startApiServer } from '../../test/support/api-server.js';
import { startProfile } from '../support/self-profile.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: server.ts <data-dir>');
// The consumers watch from the version before the updates, one after another: on a busy machine
// a run outlasts the watch caches' default 5-minute history window (an hour keeps it). The memory
// store still compacts what is older than 5 minutes (storage/retention.ts, no flag): a run slower
// than that finds its replay expired (410), which the consumers report and end on.
const server = await startApiServer(['--storage=memory', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dir}`, '--watch-history-window=1h']);
let profiler: Promise<() => Promise<object>> | undefined;
process.on('message', async (message) => {
  if (message === 'profile') profiler = startProfile();
  if (message === 'stop') {
    if (profiler) {
      const profile = await (await profiler)();
      // The profile's clock is the monotonic one in µs: `clock` maps it to the wall clock, so
      // that a consumer's stream window (epoch ms) can be cut out of it.
      const monotonicMs = Number(process.hrtime.bigint()) / 1e6;
      const clock = { epochMinusMonotonicMs: performance.timeOrigin + performance.now() - monotonicMs };
      writeFileSync(process.env['SERVER_PROFILE']!, JSON.stringify({ ...profile, clock }));
    }
    await server.close();
    process.exit(0);
  }
});
// Epoch ms at this process's time origin, for lining up V8's --trace-gc lines (ms since start) with
// the consumers' stream windows (epoch ms).
process.stderr.write(`time origin ${performance.timeOrigin.toFixed(0)}\n`);
process.stdout.write(`${JSON.stringify({ svcconfig: server.svcconfigPath })}\n`);
