// What reading a node Lease renewal off its watch costs the controller manager's process, beside
// what its JavaScript does with it (bench/client/lease-event-steps.ts): a child process serves a
// watch over HTTPS that writes one renewal frame at a time, RATE a second (5,000 idle nodes: 500),
// each in its own write — as the API server sends a renewal that is alone in its loop turn — and
// this process reads it through the client as the manager's informer does (undici, TLS, the watch
// stream, the watcher, the lazy protobuf framer) into a cache (ViewCacheWriter.upsert). Printed per
// window: this process's CPU (all threads: V8's collector helpers too) per renewal read, and
// `frames per read`: how many frames the socket handed over at once (1 is the idle case).
// The child is a frame pump, not an API server: the figure is the reading side's alone. BATCH=n
// writes n frames at a time (what coalescing a watch's writes would give the reader).
//   node --import tsx bench/client/lease-watch-read.ts        (RATE=500 LEASES=5000 WINDOW_S=20 ROUNDS=3 BATCH=1)
import { fork } from 'node:child_process';
import { createServer } from 'node:https';
import { loadavg } from 'node:os';
import type { KubeObject } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { labelsIndex, namespaceIndex, type IndexFunc } from '../../src/client/cache.js';
import { OWNER_INDEX, ownerIndex } from '../../src/client/owner-index.js';
import { ViewCacheWriter } from '../../src/client/lazy/view-cache.js';
import { protobufEventFrame } from '../../src/encoding/protobuf/envelope.js';
import { selfSignedCertificate } from '../../src/encoding/index.js';

const RATE = Number(process.env['RATE'] ?? 500);
const LEASES = Number(process.env['LEASES'] ?? 5000);
const WINDOW_MS = Number(process.env['WINDOW_S'] ?? 20) * 1000;
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
/** Frames per write (1: each renewal alone, as at idle; more: what a server coalescing its writes would send). */
const BATCH = Number(process.env['BATCH'] ?? 1);
const nodeName = (i: number) => `hollow-${String(i).padStart(5, '0')}`;

if (process.env['LEASE_WATCH_PUMP'] === '1') {
  // The frames of LEASES Leases × 2 versions, written round-robin with rising resourceVersions.
  const frame = (i: number, version: number): Buffer =>
    Buffer.from(
      protobufEventFrame(
        'MODIFIED',
        'coordination.svc.io/v1',
        'Lease',
        Buffer.from(
          JSON.stringify({
            apiVersion: 'coordination.svc.io/v1',
            kind: 'Lease',
            metadata: {
              name: nodeName(i),
              namespace: 'svc-node-lease',
              uid: `3f1c2a4e-8d1b-4c55-9a0e-${String(i).padStart(12, '0')}`,
              resourceVersion: String(1_000 + version * LEASES + i),
              creationTimestamp: '2026-11-27T13:49:30Z',
              ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName(i), uid: `9a7e0c1d-2b3f-4e5a-8c6d-${String(i).padStart(12, '0')}` }],
              managedFields: [{ manager: 'svc-nodeagent', operation: 'Update', apiVersion: 'coordination.svc.io/v1', time: '2026-11-28T02:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:holderIdentity': {}, 'f:renewTime': {} } } }],
            },
            spec: { holderIdentity: nodeName(i), leaseDurationSeconds: 40, renewTime: `2026-11-28T02:00:${String(i % 60).padStart(2, '0')}.${String(version).padStart(6, '0')}Z` },
          }),
        ),
      ),
    );
  const frames = [0, 1].flatMap((version) => Array.from({ length: LEASES }, (_, i) => frame(i, version)));
  const now = new Date();
  const pem = selfSignedCertificate({ commonName: 'pump', ipAddresses: ['127.0.0.1'], notBefore: now, notAfter: new Date(now.getTime() + 86_400_000) });
  const server = createServer({ cert: pem.cert, key: pem.key }, (req, res) => {
    if (!req.url?.includes('watch=1')) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/vnd.svc.protobuf;stream=watch' });
    let next = 0;
    let owed = 0;
    let at = performance.now();
    // Every millisecond the frames owed since, BATCH to a write.
    const timer = setInterval(() => {
      const now = performance.now();
      owed += ((now - at) * RATE) / 1000;
      at = now;
      for (; owed >= BATCH; owed -= BATCH) {
        const batch: Buffer[] = [];
        for (let k = 0; k < BATCH; k++) batch.push(frames[next++ % frames.length]!);
        res.write(BATCH === 1 ? batch[0] : Buffer.concat(batch));
      }
    }, 1);
    res.on('close', () => clearInterval(timer));
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port, ca: pem.cert }));
  process.on('message', () => process.exit(0));
} else {
  const pump = fork(new URL(import.meta.url).pathname, ['pump'], { execArgv: ['--import', 'tsx'], env: { ...process.env, LEASE_WATCH_PUMP: '1' } });
  process.once('exit', () => pump.kill());
  const { port, ca } = await new Promise<{ port: number; ca: string }>((resolve) => pump.once('message', (m) => resolve(m as { port: number; ca: string })));
  const client = new Client({ server: `https://127.0.0.1:${port}`, caData: ca, token: 'bench' });
  const cache = new ViewCacheWriter<KubeObject>({ namespace: namespaceIndex, labels: labelsIndex, [OWNER_INDEX]: ownerIndex as IndexFunc<KubeObject> });
  let read = 0;
  let updates = 0;
  const subscription = client.watch$(builtin.leases, { resourceVersion: '1', decode: 'protobuf', emitBookmarks: false, timeoutSeconds: 3600, onError: (error) => console.error('watch:', String(error)) }).subscribe((event) => {
    if (event.type !== 'MODIFIED') return;
    read += 1;
    if (cache.upsert(event.object)?.type === 'updated') updates += 1;
  });
  // Chunks the socket handed over (each a `data` event of the TLS socket's plain side): frames per read.
  let chunks = 0;
  const { subscribe } = await import('node:diagnostics_channel');
  subscribe('undici:client:connected', (message) => {
    const socket = (message as { socket?: NodeJS.EventEmitter }).socket;
    socket?.on('data', () => (chunks += 1));
  });
  // A warm-up: every Lease cached once, the code compiled.
  await new Promise((resolve) => setTimeout(resolve, Math.max(5_000, (LEASES / RATE) * 1000 + 2_000)));
  const results = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const load = loadavg()[0]!.toFixed(2);
    const from = { cpu: process.cpuUsage(), read, chunks, at: performance.now() };
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    const used = process.cpuUsage(from.cpu);
    const renewals = read - from.read;
    const result = {
      round,
      renewalsPerSecond: Math.round((renewals * 1000) / (performance.now() - from.at)),
      cpuUsPerRenewal: Number(((used.user + used.system) / renewals).toFixed(1)),
      // The kernel's share (the socket's reads, the loop's wake-ups) apart.
      systemUsPerRenewal: Number((used.system / renewals).toFixed(1)),
      framesPerRead: Number((renewals / Math.max(1, chunks - from.chunks)).toFixed(2)),
      load: `${load} → ${loadavg()[0]!.toFixed(2)}`,
    };
    console.log(JSON.stringify(result));
    results.push(result);
  }
  if (updates === 0) throw new Error('no renewal reached the cache');
  subscription.unsubscribe();
  await client.destroy();
  pump.send('stop');
  process.exit(0);
}
