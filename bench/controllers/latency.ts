// Event to reconcile start (issue #21: p99 ≤ 5 ms at 1,000 events/s over 10,000 objects). The
// secret-mirror controller runs over OBJECTS ConfigMaps at their desired state; a child process
// (bench/controllers/load-server.ts: the svc/testing cluster and the load generator) patches one
// ConfigMap's annotation RATE times a second, round robin, for SECONDS. Each patch is an update
// event the controller reconciles (reading its caches, writing nothing: the data is unchanged).
// Reported per run:
//   event → start: from the informer announcing the update to the controller (after the watch
//                  frame is read and decoded) to the reconcile of its key starting — the
//                  controller's own path: triggers, sync gate, work queue, worker;
//   sent → start:  from the load generator sending the patch (its time in the annotation) to the
//                  reconcile starting — the whole way: request, store, watch cache, the watch's
//                  bytes, the informer, the controller.
// The changes are written to the store by default (VIA=store): each makes the same watch event a
// PATCH would (store → watch cache → the watch's HTTPS stream → informer → controller) without
// the API write path's cost, which a loaded 2-core machine cannot pay 1,000 times a second;
// VIA=api sends PATCHes instead.
//   npm run bench:controller-latency            (OBJECTS=10000 RATE=1000 SECONDS=10 RUNS=3 CONCURRENCY=4 VIA=store)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { tap } from 'rxjs';
import { builtin, Client, Informer, objectKey, type ConnectionOptions } from '../../src/client/index.js';
import type { ControllerResult } from '../../controllers/index.js';
import { quantile, until } from './fill.js';
import { MIRROR_LABEL, secretMirror, type MirrorSecret, type SourceConfigMap } from './secret-mirror.js';

const OBJECTS = Number(process.env['OBJECTS'] ?? 10_000);
const RATE = Number(process.env['RATE'] ?? 1_000);
const SECONDS = Number(process.env['SECONDS'] ?? 10);
const RUNS = Number(process.env['RUNS'] ?? 3);
const CONCURRENCY = Number(process.env['CONCURRENCY'] ?? 4);
const VIA = process.env['VIA'] === 'api' ? 'api' : 'store';
const NS = 'bench';

const child = spawn(process.execPath, ['--import', 'tsx', new URL('./load-server.ts', import.meta.url).pathname, String(OBJECTS), NS], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
process.once('exit', () => child.kill());
const connection = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve))) as ConnectionOptions;
const client = new Client(connection);

const configMaps = new Informer<SourceConfigMap>(client, builtin.configMaps, { namespace: NS, labelSelector: MIRROR_LABEL });
const secrets = new Informer<MirrorSecret>(client, builtin.secrets, { namespace: NS });
const now = () => performance.timeOrigin + performance.now();
const announced = new Map<string, number>();
let eventToStart: number[] = [];
let sentToStart: number[] = [];
let updates = 0;
const reconciled = new Set<string>();
const subscription = secretMirror({
  configMaps: {
    store: configMaps.store,
    synced$: configMaps.synced$,
    // Stamped where the informer hands the event over, before any of the controller's operators.
    events$: configMaps.events$.pipe(
      tap((event) => {
        if (event.type !== 'updated') return;
        updates++;
        const key = objectKey(event.object);
        if (!announced.has(key)) announced.set(key, now());
      }),
    ),
  },
  secrets,
  client,
  concurrency: CONCURRENCY,
  onStart: (key) => {
    const at = now();
    const event = announced.get(key);
    if (event === undefined) return;
    announced.delete(key);
    eventToStart.push(at - event);
    const sent = Number(configMaps.store.get(key)?.metadata.annotations?.['bench/sent']);
    if (Number.isFinite(sent)) sentToStart.push(at - sent);
  },
}).subscribe((r: ControllerResult) => void reconciled.add(r.key));

console.log(`node ${process.version}, ${process.platform}/${process.arch}; ${OBJECTS} ConfigMaps each owning a Secret; controller concurrency ${CONCURRENCY}; changes via ${VIA}; the cluster and the load in a child process (svc/testing: memory store, HTTPS loopback)\n`);
await until(() => secrets.store.size === OBJECTS && reconciled.size === OBJECTS);

const sendLoad = (rate: number, seconds: number) =>
  new Promise<{ sent: number; errors: number; seconds: number; maxInFlight: number }>((resolve) => {
    child.once('message', (m) => resolve(m as { sent: number; errors: number; seconds: number; maxInFlight: number }));
    child.send({ rate, seconds, via: VIA });
  });

// Warm-up (JIT, the pools), not reported; each phase ends once every update it made has been seen.
const warmUp = await sendLoad(RATE, 2);
await until(() => updates >= warmUp.sent - warmUp.errors && announced.size === 0);

console.log('| run | events/s asked, sent | update events seen | event → reconcile start p50 / p99 / max (ms) | sent → reconcile start p50 / p99 / max (ms) |');
console.log('| --- | --- | --- | --- | --- |');
const fmt = (sorted: number[]) => `${quantile(sorted, 0.5).toFixed(2)} / ${quantile(sorted, 0.99).toFixed(2)} / ${(sorted.at(-1) ?? 0).toFixed(2)}`;
for (let run = 1; run <= RUNS; run++) {
  eventToStart = [];
  sentToStart = [];
  updates = 0;
  const load = await sendLoad(RATE, SECONDS);
  await until(() => updates >= load.sent - load.errors && announced.size === 0);
  eventToStart.sort((a, b) => a - b);
  sentToStart.sort((a, b) => a - b);
  console.log(`| ${run} | ${RATE}, ${Math.round(load.sent / load.seconds)} (errors ${load.errors}) | ${updates} | ${fmt(eventToStart)} | ${fmt(sentToStart)} |`);
}

subscription.unsubscribe();
configMaps.stop();
secrets.stop();
await client.destroy();
child.send('stop');
await new Promise((resolve) => child.once('exit', resolve));
