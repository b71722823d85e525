import { setImmediate as nextTurn } from 'node:timers/promises';
import { Subject, type Observable, type Subscription } from 'rxjs';
import { DiscoveryCache, type EventSink } from '../client/index.js';
import type { ControllerContext, ControllerDefaults, ControllerResult } from '../../controllers/index.js';
import type { WorkqueueMetrics } from '../../operators/index.js';
import type { EventLine, TestCluster } from '../testing/index.js';
import type { ControllerFigures } from './controller-figures.js';
import type { BenchResult, Percentiles } from './operator-bench.js';
import type { Benchmark } from './runs.js';

/** How a replay feeds the corpus: see `ControllerBench.pace`. */
export type ReplayPace = 'settle' | 'flood' | { readonly speed: number };

export interface ControllerBench {
  readonly name: string;
  /**
   * The loop under test, as the controller manager starts it (`builtinLoops()` entries are these).
   * `now` is the corpus's clock: the recording's wall time at the line being fed (estimated from
   * the objects' creation times). Give it to a loop that judges recorded times (availability,
   * progress deadlines) — `deploymentController(ctx, { now })` — so a replay does not depend on
   * how old the corpus is.
   */
  readonly loop: (context: ControllerContext, now: () => number) => Observable<ControllerResult<unknown>>;
  /**
   * The recorded corpus: NDJSON as `svc record` and the test kit's `Recorder` write; or a function
   * giving it, called when a run starts — so a file of many benches reads a large corpus (the
   * 5,000-pod churn is 105 MB of NDJSON) only in the runs that replay it (`svc bench` forks a
   * process per run, and each loads the whole file).
   */
  readonly corpus: string | (() => string);
  /** The corpus's name in reports (default "recorded corpus"). */
  readonly corpusName?: string | undefined;
  /**
   * `settle` (default): each recorded line is fed once the loop is idle (nothing queued, nothing
   * running), so every event is reconciled on its own — deterministic counts, latency without
   * queueing behind other events. `flood`: every line at once, then wait for idle — the most
   * coalescing, the highest reconciles/s, latency that is mostly queueing. `{ speed }`: each line
   * at its recorded time (`at`) divided by `speed` on the real clock (1: as recorded) — the
   * coalescing and queueing the recorded rate gives; the counts then depend on the machine.
   */
  readonly pace?: ReplayPace | undefined;
  /** Longest wait for the loop to go idle after a line before the run fails (default 30 s). */
  readonly idleTimeoutMs?: number | undefined;
  /** A cluster to answer on (default: one started and stopped per run). */
  readonly cluster?: TestCluster | undefined;
}

export type ControllerBenchResult = BenchResult & { readonly controller: ControllerFigures };

/** Per controller of the loop: its queue's depth and runs in flight, from the metrics hook. */
interface QueueState {
  waiting: number;
  running: number;
}

const percentiles = (values: number[]): Percentiles | undefined => {
  if (values.length === 0) return undefined;
  values.sort((a, b) => a - b);
  const at = (q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))]!;
  return { p50: at(0.5), p99: at(0.99), max: values[values.length - 1]! };
};

/**
 * Replays a recorded corpus through a control loop and measures it: the loop's informers are fed
 * the recorded watch events (the client's own informer and cache code; only the watch stream is
 * the corpus), its writes go over HTTPS to an in-process API server (the test kit's) whose write
 * tap answers them without storing anything, so the recorded events stay the world. Reports
 * reconciles/s, writes per event, event → reconcile latency (from the event that queued a key to
 * the end of the reconcile of that key; a requeue counts from the last event fed) and CPU per
 * event (the process's: the server answering the writes is part of it).
 */
export async function benchController(bench: ControllerBench): Promise<ControllerBenchResult> {
  const pace = bench.pace ?? 'settle';
  if (typeof pace === 'object' && !(pace.speed > 0)) throw new RangeError(`${bench.name}: pace.speed must be positive, not ${pace.speed}`);
  const paceName = typeof pace === 'object' ? `recorded ×${pace.speed}` : pace;
  // Loaded here, not at the top: the test kit is an API server and its whole stack, which an
  // operator benchmark's process (svc bench forks one per run) has no need to load.
  const [{ parseRecording, startTestCluster }, { CorpusAnswers }, { CorpusWatches }] = await Promise.all([import('../testing/index.js'), import('./corpus-answers.js'), import('./corpus-watches.js')]);
  const lines = parseRecording(typeof bench.corpus === 'function' ? bench.corpus() : bench.corpus).filter((line): line is EventLine => 'source' in line);
  const recordingStart = recordingStartOf(lines);
  let currentAt = lines[0]?.at ?? 0;
  const now = (): number => recordingStart + currentAt;
  const syncedByCorpus = new Set(lines.filter((line) => line.type === 'SYNCED').map((line) => line.source));
  const ownCluster = bench.cluster === undefined;
  const cluster = bench.cluster ?? (await startTestCluster());
  const agent = `svc-bench/${bench.name.replace(/[^\w.-]+/g, '-')}`;
  const answers = new CorpusAnswers();
  const writesByMethod: Record<string, number> = {};
  let writes = 0;
  const stopAnswering = cluster.writeTap.answer(agent, (write) => {
    writes++;
    writesByMethod[write.method] = (writesByMethod[write.method] ?? 0) + 1;
    return answers.answer(write);
  });
  const watches = new CorpusWatches();
  const client = watches.client({ ...cluster.connection, userAgent: agent });
  const informers = watches.informers(client);
  const stop$ = new Subject<void>();

  const queues: QueueState[] = [];
  let onChange: (() => void) | undefined;
  const idle = () => queues.every((q) => q.waiting === 0 && q.running === 0);
  let lastFedAt = performance.now();
  const queuedSince = new Map<string, number>();
  const metricsFor = (): WorkqueueMetrics => {
    const state: QueueState = { waiting: 0, running: 0 };
    queues.push(state);
    return {
      add: (key) => {
        if (!queuedSince.has(key)) queuedSince.set(key, lastFedAt);
      },
      depth: (waiting) => {
        state.waiting = waiting;
        onChange?.();
      },
      queueDuration: () => {
        state.running++;
      },
      workDuration: () => {
        state.running--;
        onChange?.();
      },
    };
  };
  let recordedEvents = 0;
  const events: EventSink = { record: () => void recordedEvents++ };
  const context: ControllerContext = {
    name: bench.name,
    client,
    informers,
    discovery: new DiscoveryCache(client),
    events,
    stop$,
    controllerDefaults: (): ControllerDefaults => ({ stop$, metrics: metricsFor(), drainTimeoutMs: 5_000 }),
  };

  const latencies: number[] = [];
  const results: Record<string, number> = {};
  let reconciles = 0;
  let failure: unknown;

  const idleTimeoutMs = bench.idleTimeoutMs ?? 30_000;
  const settle = async (): Promise<void> => {
    const deadline = performance.now() + idleTimeoutMs;
    // Two quiet turns of the event loop: a key queued from a callback of the last one is seen.
    for (let quiet = 0; quiet < 2; ) {
      await nextTurn();
      if (failure !== undefined) throw failure;
      if (!idle()) {
        quiet = 0;
        if (performance.now() > deadline) throw new Error(`${bench.name}: the loop was not idle ${idleTimeoutMs} ms after a recorded line`);
        await new Promise<void>((resolve) => {
          onChange = resolve;
          setTimeout(resolve, 50).unref();
        });
        onChange = undefined;
      } else quiet++;
    }
  };

  let fed = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  let peak = process.memoryUsage().heapUsed;
  let subscription: Subscription | undefined;
  let wallMs = 0;
  let cpu = { user: 0, system: 0 };
  try {
    subscription = bench.loop(context, now).subscribe({
      next: (result) => {
        reconciles++;
        results[result.type] = (results[result.type] ?? 0) + 1;
        const since = queuedSince.get(result.key);
        if (since !== undefined) {
          queuedSince.delete(result.key);
          latencies.push(performance.now() - since);
        }
      },
      error: (error: unknown) => (failure = error),
    });
    informers.start();
    watches.syncRest(syncedByCorpus);
    await settle(); // the loop's start (its informers synced empty where the corpus has nothing)
    const firstAt = lines[0]?.at ?? 0;
    const fedFrom = performance.now();
    for (const line of lines) {
      if (typeof pace === 'object') {
        const due = fedFrom + (line.at - firstAt) / pace.speed - performance.now();
        if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
        if (failure !== undefined) throw failure;
      }
      if (line.type === 'SYNCED') for (const object of line.objects ?? []) answers.track(line.source, object, false);
      else if (line.object) answers.track(line.source, line.object, line.type === 'DELETED');
      lastFedAt = performance.now();
      currentAt = line.at;
      if (watches.apply(line)) fed += line.type === 'SYNCED' ? (line.objects?.length ?? 0) : 1;
      if (pace === 'settle') await settle();
      if (pace !== 'flood') {
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
    }
    await settle();
    // Measured before the clean-up: stopping a cluster is not the loop's work.
    wallMs = performance.now() - start;
    cpu = process.cpuUsage(cpu0);
  } finally {
    stop$.next();
    subscription?.unsubscribe();
    informers.stop();
    stopAnswering();
    await client.destroy();
    if (ownCluster) await cluster.stop();
  }
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  const ns = ((cpu.user + cpu.system) * 1000) / Math.max(1, fed);
  const span = lines.length > 0 ? lines[lines.length - 1]!.at - lines[0]!.at : 0;
  return {
    name: bench.name,
    input: `${bench.corpusName ?? 'recorded corpus'} (${paceName})`,
    clock: 'real',
    items: fed,
    outputs: reconciles,
    nsPerItem: { avg: ns, min: ns, p50: ns, p99: ns, max: ns },
    baseline: undefined,
    overheadNsPerItem: undefined,
    itemsPerSecond: 1e9 / Math.max(1e-9, ns),
    bytesPerItem: undefined,
    baselineBytesPerItem: undefined,
    latencyMs: percentiles(latencies),
    spanMs: span,
    peakHeapBytes: peak,
    controller: {
      pace: paceName,
      events: fed,
      reconciles,
      results,
      reconcilesPerSecond: reconciles / Math.max(1e-9, wallMs / 1000),
      writes,
      writesByMethod,
      writesPerEvent: writes / Math.max(1, fed),
      recordedEvents,
      wallMs,
    },
  };
}

/**
 * When the recording began, in ms since the epoch: the latest of (an object's creationTimestamp −
 * the `at` of the line that carried it), since nothing recorded at `at` was created after it.
 * Now, for a corpus without timestamps.
 */
function recordingStartOf(lines: readonly EventLine[]): number {
  let start = -Infinity;
  for (const line of lines) {
    for (const object of line.objects ?? (line.object ? [line.object] : [])) {
      const created = Date.parse(object.metadata.creationTimestamp ?? '');
      if (!Number.isNaN(created)) start = Math.max(start, created - line.at);
    }
  }
  return start === -Infinity ? Date.now() : start;
}

/** A ControllerBench as a Benchmark (`benchController` when run), for `defineBenchmarks` and `svc bench`. */
export function controllerBenchmark(spec: ControllerBench): Benchmark {
  return { name: spec.name, run: () => benchController(spec) };
}
