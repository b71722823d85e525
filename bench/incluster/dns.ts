// Cluster DNS throughput (issue #31): the server (this process, one event loop: one core) answers
// A queries for cluster names (SERVICES Services, asked round robin) from a load generator in a
// child process that keeps WINDOW queries in flight over UDP for SECONDS. Reported: queries/s
// answered and the latency p50/p99 the generator saw (send → answer).
//   npm run bench:dns            (SERVICES=200 WINDOW=64 SECONDS=10; 200: the default service range is a /24)
import { fork } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { performance } from 'node:perf_hooks';
import * as dns from 'dns-packet';
import { builtin, InformerFactory } from '../../src/client/index.js';
import { startClusterDns } from '../../controllers/index.js';
import { startTestCluster } from '../../src/testing/index.js';

const SERVICES = Number(process.env['SERVICES'] ?? 200);
const WINDOW = Number(process.env['WINDOW'] ?? 64);
const SECONDS = Number(process.env['SECONDS'] ?? 10);

if (process.argv[2] === 'load') {
  // The generator: WINDOW queries in flight, each answered one replaced by the next.
  const port = Number(process.argv[3]);
  const socket = createSocket('udp4');
  const sentAt = new Float64Array(65536);
  const latencies: number[] = [];
  let answered = 0;
  let errors = 0;
  let id = 0;
  let name = 0;
  const send = () => {
    id = (id + 1) & 0xffff;
    name = (name + 1) % SERVICES;
    sentAt[id] = performance.now();
    socket.send(dns.encode({ type: 'query', id, flags: dns.RECURSION_DESIRED, questions: [{ type: 'A', name: `svc-${name}.bench.svc.cluster.local` }] }), port, '127.0.0.1');
  };
  const started = performance.now();
  const end = started + SECONDS * 1000;
  socket.on('message', (message) => {
    const rid = message.readUInt16BE(0);
    latencies.push(performance.now() - sentAt[rid]!);
    if ((message.readUInt16BE(6)) !== 1) errors++;
    answered++;
    if (performance.now() < end) send();
    else if (answered >= latencies.length) {
      latencies.sort((a, b) => a - b);
      const q = (p: number) => +latencies[Math.floor(p * (latencies.length - 1))]!.toFixed(3);
      process.send!({ qps: Math.round(answered / ((performance.now() - started) / 1000)), p50: q(0.5), p99: q(0.99), errors });
      socket.close();
    }
  });
  socket.bind(0, '127.0.0.1', () => {
    for (let i = 0; i < WINDOW; i++) send();
  });
} else {
  const cluster = await startTestCluster({ namespaces: ['bench'] });
  try {
    for (let i = 0; i < SERVICES; i++) {
      await cluster.client.create(
        builtin.services,
        { apiVersion: 'v1', kind: 'Service', metadata: { name: `svc-${i}`, namespace: 'bench' }, spec: { ports: [{ port: 80, protocol: 'TCP' }] } },
        { namespace: 'bench' },
      );
    }
    const informers = new InformerFactory(cluster.client);
    const server = await startClusterDns({ informers, address: '127.0.0.1', port: 0, upstreams: [] });
    await server.synced;
    const child = fork(new URL(import.meta.url).pathname, ['load', String(server.port)], { execArgv: ['--import', 'tsx'] });
    const result = await new Promise((resolve) => child.on('message', resolve));
    console.log(JSON.stringify({ services: SERVICES, window: WINDOW, seconds: SECONDS, ...(result as object) }, null, 2));
    child.kill();
    await server.close();
    informers.stop();
  } finally {
    await cluster.stop();
  }
}
