// bench:dashboard's API server, a process of its own: the in-process test cluster (memory store,
// HTTPS, a real token), so the driver's main thread — the dashboard server's proxy and the Node
// reader beside the page — no longer shares an event loop (and a core's worth of turns) with the
// API server it measures. Sends its connection over IPC once it listens; on "cpu" reports the
// CPU time it spent (user + system, µs) and its event loop's delay since the last "cpu"; on
// "stop" exits. With PROFILE_SERVER=<file>.cpuprofile
// it profiles itself between "profile-start" and "profile-stop" (the stream), writes the profile
// and answers with its split (bench/support/profile-split.ts): delivery against the write path.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestCluster } from '../../src/testing/index.js';
import { splitProfile } from '../support/profile-split.js';
import { startProfile } from '../support/self-profile.js';

const PROFILE_SERVER = process.env['PROFILE_SERVER'];
// TURN_BUDGET_MS: the server's turnBudgetMs (src/apiserver/turn-budget.ts; default 10, 0: none), for an A/B of it.
const turnBudget = process.env['TURN_BUDGET_MS'];
const cluster = await startTestCluster({ namespaces: ['bench'], ...(turnBudget === undefined ? {} : { apiServer: { turnBudgetMs: Number(turnBudget) } }) });
const { server, token, caData } = cluster.connection;
const cpuAtStart = process.cpuUsage();
// How long a timer waited for its turn: a long loop turn (many requests handled in one poll
// phase) is also how long a watch's second write of that turn waits (docs/benchmarks.md).
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
let stopProfile: ReturnType<typeof startProfile> | undefined;
process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage(cpuAtStart);
    const ms = (ns: number) => +(ns / 1e6).toFixed(1);
    process.send!({ kind: 'cpu', micros: user + system, systemMicros: system, loopDelayMs: { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) } });
    loopDelay.reset();
  }
  if (message === 'profile-start' && PROFILE_SERVER !== undefined) stopProfile = startProfile();
  if (message === 'profile-stop') {
    const started = stopProfile;
    stopProfile = undefined;
    void (async () => {
      if (started === undefined || PROFILE_SERVER === undefined) return process.send!({ kind: 'profile' });
      const profile = await (await started)();
      writeFileSync(PROFILE_SERVER, JSON.stringify(profile));
      process.send!({ kind: 'profile', split: splitProfile(profile) });
    })();
  }
  if (message === 'stop') void cluster.stop().then(() => process.exit(0));
});
process.send!({ kind: 'ready', connection: { server, token, caData } });
