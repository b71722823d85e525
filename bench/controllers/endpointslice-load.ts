// bench:endpointslice's load process (a child of endpointslice.ts): the cluster's other clients.
// Its main thread is the observer — a watch of its own on EndpointSlices, decoded once per event,
// the way a service proxy reads them — and a worker thread is the flipper
// (endpointslice-flipper.ts). So the loop's process holds the loop, the API server's holds the
// server, and this one the load and the measuring.
//   argv[2]: the svcconfig; IPC from the driver: {kind:'phase'} → {kind:'synced'}, {kind:'flipping'},
//   {kind:'flipped'}, {kind:'done', …}; {kind:'stop'} ends it.
import { Worker } from 'node:worker_threads';
import type { EndpointSlice } from '../../src/api/index.js';
import { builtin, Client, InformerFactory } from '../../src/client/index.js';

const svcconfig = process.argv[2]!;
const PODS = Number(process.env['PODS'] ?? 5_000);
const FLIP_RATE = Number(process.env['FLIP_RATE'] ?? 1_000);
const SECONDS = Number(process.env['SECONDS'] ?? 10);
const SETTLE_S = Number(process.env['SETTLE_S'] ?? 120);
const COOLDOWN_MS = Number(process.env['COOLDOWN_MS'] ?? 2_000);
const IN_FLIGHT = 32;
const NS = 'bench';

const ipOf = (i: number): string => `10.${64 + Math.floor(i / 65_536)}.${Math.floor(i / 256) % 256}.${i % 256}`;
const indexOf = new Map<string, number>(Array.from({ length: PODS }, (_, i) => [ipOf(i), i]));
const epoch = (): number => performance.timeOrigin + performance.now();
const send = (message: unknown): void => void process.send!(message);

/** Each pod's readiness as the flipper last set it (all Ready after the setup). */
let ready = new Array<boolean>(PODS).fill(true);

/** Endpoints whose ready condition is not the pod's. */
function wrong(list: readonly EndpointSlice[]): number {
  let n = 0;
  for (const slice of list) for (const e of slice.endpoints ?? []) if (e.conditions?.ready !== ready[indexOf.get(e.addresses[0]!)!]) n++;
  return n;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** What the load process reports of one phase (the driver, endpointslice.ts, reads it). */
export interface PhaseResult {
  readonly sent: number;
  readonly failed: number;
  readonly seconds: number;
  /** Per flip: pod index, ready (1/0), sent at, answered at, seen at (epoch ms; NaN: not seen). */
  readonly flips: number[];
  /** Flips not seen whose pod's endpoint shows its readiness by the end (a later flip of it, or the slice written before the flip's own event). */
  readonly converged: number;
  /** Flips not seen because a later flip of their pod came first. */
  readonly superseded: number;
  readonly serverMs: number | undefined;
  readonly convergeMs: number;
  readonly disagreeing: { readonly server: number; readonly observer: number } | undefined;
  readonly watchErrors: number;
}

async function phase(): Promise<PhaseResult> {
  const client = await Client.fromSvcconfig(svcconfig, { userAgent: 'observer' });
  let watchErrors = 0;
  const observer = new InformerFactory(client, { onError: () => watchErrors++ });
  const slices = observer.informer(builtin.endpointSlices, { decode: 'eager', namespace: NS });
  // What the observer shows of each pod: its ready condition and since when.
  const shownReady = new Uint8Array(PODS).fill(2);
  const shownSince = new Float64Array(PODS);
  /** Flips answered, not yet seen: pod index → its row in `flips`. */
  const pending = new Map<number, number>();
  const flips: number[] = [];
  let superseded = 0;
  const watching = slices.events$.subscribe((event) => {
    if (event.type === 'deleted') return;
    const now = epoch();
    for (const endpoint of event.object.endpoints ?? []) {
      const i = indexOf.get(endpoint.addresses[0]!);
      if (i === undefined) continue;
      const value = endpoint.conditions?.ready === true ? 1 : 0;
      if (shownReady[i] === value) continue;
      shownReady[i] = value;
      shownSince[i] = now;
      const row = pending.get(i);
      if (row !== undefined && flips[row + 1] === value) {
        flips[row + 4] = now;
        pending.delete(i);
      }
    }
  });
  slices.start();
  await slices.waitForSync();
  const total = (): number => slices.store.list().reduce((n, s) => n + (s.endpoints?.length ?? 0), 0);
  const guard = setInterval(() => process.stderr.write(`load: waiting for the slices: ${total()} endpoints, ${wrong(slices.store.list())} disagreeing\n`), 5_000);
  await until(() => total() === PODS && wrong(slices.store.list()) === 0);
  clearInterval(guard);
  process.stderr.write('load: synced\n');
  send({ kind: 'synced' });

  // The flipper: answered flips arrive in batches; one may be visible already (the watch can beat
  // the answer, and the batch lags up to 20 ms), which its pod's shown-since time tells.
  const worker = new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./endpointslice-flipper.ts', import.meta.url).href)}); })`,
    { eval: true, workerData: { svcconfig, namespace: NS, pods: PODS, rate: FLIP_RATE, seconds: SECONDS, inFlight: IN_FLIGHT, cooldownMs: COOLDOWN_MS, ready } },
  );
  const done = new Promise<{ sent: number; failed: number; seconds: number; ready: boolean[] }>((resolve, reject) => {
    worker.on('message', (message: { kind: 'answered'; batch: number[] } | { kind: 'done'; sent: number; failed: number; seconds: number; ready: boolean[] }) => {
      if (message.kind === 'done') return resolve(message);
      const batch = message.batch;
      if (flips.length === 0) send({ kind: 'flipping', at: batch[2] });
      for (let k = 0; k < batch.length; k += 4) {
        const [i, value, sentAt, answeredAt] = [batch[k]!, batch[k + 1]!, batch[k + 2]!, batch[k + 3]!];
        const row = flips.length;
        const seen = shownReady[i] === value && shownSince[i]! >= sentAt ? shownSince[i]! : NaN;
        flips.push(i, value, sentAt, answeredAt, seen);
        if (!Number.isNaN(seen)) continue;
        // A flip of a pod whose previous flip is still unseen: that one is superseded (the cooldown makes it rare).
        if (pending.has(i)) superseded++;
        pending.set(i, row);
      }
    });
    worker.on('error', reject);
  });
  const flipped = await done;
  await worker.terminate();
  ready = flipped.ready;
  send({ kind: 'flipped', at: epoch(), seconds: flipped.seconds });

  const settleStart = performance.now();
  let serverMs: number | undefined;
  const serverCheck = (async () => {
    while (serverMs === undefined && performance.now() - settleStart <= SETTLE_S * 1000) {
      if (wrong((await client.list(builtin.endpointSlices, { namespace: NS })).items) === 0) serverMs = performance.now() - settleStart;
      else await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();
  // Settled: the observer's slices agree with every pod (a flip left pending then shows its value: a flip superseded before it, or written before its own event).
  await until(() => wrong(slices.store.list()) === 0 || performance.now() - settleStart > SETTLE_S * 1000);
  const convergeMs = performance.now() - settleStart;
  await serverCheck;
  let converged = 0;
  for (const [i, row] of pending) if (shownReady[i] === flips[row + 1]) converged++;
  const disagreeing = pending.size > converged || serverMs === undefined ? { server: wrong((await client.list(builtin.endpointSlices, { namespace: NS })).items), observer: wrong(slices.store.list()) } : undefined;
  watching.unsubscribe();
  observer.stop();
  return { sent: flipped.sent, failed: flipped.failed, seconds: flipped.seconds, flips, converged, superseded, serverMs, convergeMs, disagreeing, watchErrors };
}

process.on('message', (message: { kind: string }) => {
  if (message.kind === 'phase') void phase().then((result) => send({ kind: 'done', result }), (error: unknown) => send({ kind: 'error', error: String(error) }));
  if (message.kind === 'stop') process.exit(0);
});
process.stderr.write('load: ready\n');
send({ kind: 'ready' });
