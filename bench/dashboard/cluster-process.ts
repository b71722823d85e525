// bench:dashboard's API server, a process of its own: the in-process test cluster (memory store,
// HTTPS, a real token), so the driver's main thread — the dashboard server's proxy and the Node
// reader beside the page — no longer shares an event loop (and a core's worth of turns) with the
// API server it measures. Sends its connection over IPC once it listens; on "stop" reports the
// CPU time it spent (user + system, µs) and exits.
import { startTestCluster } from '../../src/testing/index.js';

const cluster = await startTestCluster({ namespaces: ['bench'] });
const { server, token, caData } = cluster.connection;
const cpuAtStart = process.cpuUsage();
process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage(cpuAtStart);
    process.send!({ kind: 'cpu', micros: user + system });
  }
  if (message === 'stop') void cluster.stop().then(() => process.exit(0));
});
process.send!({ kind: 'ready', connection: { server, token, caData } });
