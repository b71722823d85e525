import { measure } from 'mitata';
import { Observable, VirtualAction, VirtualTimeScheduler, asyncScheduler, type OperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';
import type { ControllerFigures } from './controller-figures.js';
import type { BenchInput, Timed } from './input.js';

/** What a pipeline is compared against. */
export interface Baseline<T> {
  readonly name: string;
  /** Another pipeline (an earlier version of yours, say), run exactly as the one under test. */
  readonly operator?: ((scheduler: SchedulerLike) => OperatorFunction<T, unknown>) | undefined;
  /** Or a hand-written loop over the items: what the pipeline does, without RxJS. */
  readonly loop?: ((items: readonly T[]) => void) | undefined;
}

export interface OperatorBench<T, R> {
  readonly name: string;
  /**
   * The pipeline under test, made for one run on `scheduler`: hand it to every operator that has
   * timers (rateLimit, batch, back-off), so a virtual run moves them on the virtual clock.
   */
  readonly operator: (scheduler: SchedulerLike) => OperatorFunction<T, R>;
  readonly input: BenchInput<T>;
  /** Default: the input fed through no operator (what feeding costs; the difference is the pipeline's). */
  readonly baseline?: Baseline<T> | undefined;
  /**
   * `virtual` (default): items arrive at their times on a virtual clock and every timer runs on
   * it, as fast as the CPU goes — a 10-minute window costs what its work costs. `real`: on the
   * real clock, one run lasting as long as the input does (for pipelines whose timers cannot take
   * a scheduler).
   */
  readonly clock?: 'virtual' | 'real' | undefined;
  /**
   * How long past the last item the clock runs on (default 60,000 ms), so trailing timers fire
   * (a batch window, a retry) but a periodic one (resync) cannot run forever.
   */
  readonly drainMs?: number | undefined;
  /** For latency: an item's key, and the keys an output carries. Default: the n-th output answers the n-th item. */
  readonly keyOf?: ((item: T) => string) | undefined;
  readonly outputKeys?: ((output: R) => readonly string[]) | undefined;
  /** CPU time mitata spends per measurement (default 400 ms, `BENCH_MS`). */
  readonly minCpuMs?: number | undefined;
}

export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export interface BenchResult {
  readonly name: string;
  readonly input: string;
  readonly clock: 'virtual' | 'real';
  readonly items: number;
  readonly outputs: number;
  /** CPU nanoseconds per item of a whole run (mitata's statistics over its samples). */
  readonly nsPerItem: { readonly avg: number; readonly min: number; readonly p50: number; readonly p99: number; readonly max: number };
  readonly baseline: { readonly name: string; readonly nsPerItem: number } | undefined;
  /** nsPerItem.avg − the baseline's: what the pipeline adds per item. */
  readonly overheadNsPerItem: number | undefined;
  /** Items per second of CPU time (1e9 / nsPerItem.avg). */
  readonly itemsPerSecond: number;
  /** Heap bytes allocated per item, as mitata measured the heap across a run (approximate: a GC inside a run hides some). */
  readonly bytesPerItem: number | undefined;
  readonly baselineBytesPerItem: number | undefined;
  /** From an item's arrival to the output carrying it, in ms of the run's clock (virtual ms for a virtual run). */
  readonly latencyMs: Percentiles | undefined;
  /** How much time the input spans on its clock, ms. */
  readonly spanMs: number;
  /** The highest heap in use seen during the latency run, bytes. */
  readonly peakHeapBytes: number;
  /** A controller replay's own figures (benchController): reconciles, writes, their rates. */
  readonly controller?: ControllerFigures | undefined;
}

// Read when a bench runs, not when this module loads: a test may set BENCH_MS first.
const defaultMinCpuMs = (): number => Number(process.env['BENCH_MS'] ?? 400);

/**
 * The input as an Observable on `scheduler`: one scheduled action per distinct arrival time
 * (not one per item: scheduling is part of what is fed, and the baseline feeds the same way).
 */
function feed<T>(items: readonly Timed<T>[], scheduler: SchedulerLike): Observable<T> {
  return new Observable<T>((subscriber) => {
    if (items.length === 0) return subscriber.complete();
    let i = 0;
    // Each next arrival is scheduled from the top (not from inside the running action, which would
    // nest one subscription per arrival); only the pending one is held, to cancel.
    let pending: Subscription | undefined;
    const step = (): void => {
      const now = items[i]!.at;
      while (i < items.length && items[i]!.at <= now && !subscriber.closed) subscriber.next(items[i++]!.value);
      if (i >= items.length) return subscriber.complete();
      if (!subscriber.closed) pending = scheduler.schedule(step, items[i]!.at - now);
    };
    pending = scheduler.schedule(step, items[0]!.at);
    return () => pending?.unsubscribe();
  });
}

/** One virtual run: the pipeline over the input, every timer on a fresh virtual clock, drained. */
function virtualRun<T, R>(items: readonly Timed<T>[], operator: (scheduler: SchedulerLike) => OperatorFunction<T, R>, drainMs: number, onOutput: (output: R, now: number) => void): void {
  const last = items.length > 0 ? items[items.length - 1]!.at : 0;
  const scheduler = new VirtualTimeScheduler(VirtualAction, last + drainMs);
  const subscription = feed(items, scheduler)
    .pipe(operator(scheduler))
    .subscribe((output) => onOutput(output, scheduler.now()));
  scheduler.flush();
  subscription.unsubscribe();
}

/** Latency bookkeeping: arrivals by key (or in order), matched by outputs. */
function latencyTracker<T, R>(bench: OperatorBench<T, R>) {
  const byKey = new Map<string, number>();
  const inOrder: number[] = [];
  let head = 0;
  const latencies: number[] = [];
  const { keyOf, outputKeys } = bench;
  return {
    wrap: (scheduler: SchedulerLike): OperatorFunction<T, T> => (source) =>
      new Observable<T>((subscriber) =>
        source.subscribe({
          next: (item) => {
            if (keyOf && outputKeys) {
              const key = keyOf(item);
              if (!byKey.has(key)) byKey.set(key, scheduler.now());
            } else inOrder.push(scheduler.now());
            subscriber.next(item);
          },
          error: (e: unknown) => subscriber.error(e),
          complete: () => subscriber.complete(),
        }),
      ),
    output(output: R, now: number): void {
      if (keyOf && outputKeys) {
        for (const key of outputKeys(output)) {
          const at = byKey.get(key);
          if (at === undefined) continue;
          byKey.delete(key);
          latencies.push(now - at);
        }
      } else if (head < inOrder.length) latencies.push(now - inOrder[head++]!);
    },
    percentiles(): Percentiles | undefined {
      if (latencies.length === 0) return undefined;
      latencies.sort((a, b) => a - b);
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
      return { p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1]! };
    },
  };
}

const heapUsed = (): number => process.memoryUsage().heapUsed;

/**
 * The process's CPU time in ns (user + system, 1 µs resolution): mitata's clock for every
 * measurement, so what is reported is the work the pipeline costs, not the wall time a loaded
 * machine stretches it to. A run is a whole input (thousands of items), far above the resolution.
 */
const cpuNow = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
};

/**
 * Runs `fn` untimed for `cpuNs` of CPU time (at least twice): the JIT's tiers (and its
 * optimising compiler, which works on another thread and is late on a loaded machine) settle
 * before mitata's samples start, instead of the first samples' slow code weighing in the mean —
 * a short bench measured from a cold start reads up to several times slower, by chance. Returns
 * what one run cost, in CPU ns.
 */
function warmUp(fn: () => void, cpuNs: number): number {
  const start = cpuNow();
  let runs = 0;
  for (; runs < 2 || cpuNow() - start < cpuNs; runs++) fn();
  return (cpuNow() - start) / runs;
}

/** The options of mitata's `measure` the harness sets (mitata's types do not export theirs). */
interface MeasureOptions {
  readonly min_cpu_time: number;
  readonly min_samples: number;
  readonly batch_unroll: number;
  readonly batch_samples: number;
  readonly heap: () => number;
  readonly now: () => number;
}

// mitata's own: the samples it takes at the least, and the calls it unrolls in a batch.
const MIN_SAMPLES = 12;
const BATCH_UNROLL = 4;

/**
 * mitata's measuring options for a run costing `runNs`. mitata batches a function faster than
 * 65 µs and sizes its batches for nanosecond functions — 4,096 calls a sample, at least 12
 * samples, so at least 49,152 calls: a run of a small input (a few µs) then cost ten times the
 * measuring time asked, and a `svc bench` process spent most of its CPU measuring the baseline.
 * Here a batch is as many runs as fill one of the 12 samples' share of `minCpuNs` (a multiple of
 * the unrolling); mitata still decides whether to batch at all.
 */
function measureOptions(minCpuNs: number, runNs: number): MeasureOptions {
  const perSample = minCpuNs / MIN_SAMPLES;
  const batch = Math.max(BATCH_UNROLL, Math.ceil(perSample / Math.max(1, runNs) / BATCH_UNROLL) * BATCH_UNROLL);
  return { min_cpu_time: minCpuNs, min_samples: MIN_SAMPLES, batch_unroll: BATCH_UNROLL, batch_samples: batch, heap: heapUsed, now: cpuNow };
}

/**
 * Measures a pipeline over an input against a baseline, with mitata: CPU time and heap per item,
 * throughput, the pipeline's latency from item to output on the run's clock, and peak heap.
 *
 * @example
 * const result = await benchOperator({
 *   name: 'rateLimit 100/s',
 *   operator: (scheduler) => rateLimit({ qps: 100, burst: 10, scheduler }),
 *   input: syntheticEvents({ keys: 1_000, events: 60_000, ratePerSecond: 100 }), // 10 minutes
 * });
 */
export async function benchOperator<T, R>(bench: OperatorBench<T, R>): Promise<BenchResult> {
  const clock = bench.clock ?? 'virtual';
  if (clock === 'real') return realRun(bench);
  const items = bench.input.items;
  const values = items.map((item) => item.value);
  const drainMs = bench.drainMs ?? 60_000;
  const minCpuNs = (bench.minCpuMs ?? defaultMinCpuMs()) * 1e6;
  const run = () => virtualRun(items, bench.operator, drainMs, () => {});
  const stats = await measure(run, measureOptions(minCpuNs, warmUp(run, minCpuNs / 2)));

  const baseline = bench.baseline ?? { name: 'fed through nothing', operator: () => (source: Observable<T>) => source };
  const baseRun = baseline.loop ? () => baseline.loop!(values) : () => virtualRun(items, baseline.operator!, drainMs, () => {});
  const base = await measure(baseRun, measureOptions(minCpuNs, warmUp(baseRun, minCpuNs / 2)));

  // One more run, untimed, for latency and peak heap.
  const tracker = latencyTracker(bench);
  let peak = heapUsed();
  let outputs = 0;
  virtualRun(
    items,
    (scheduler) => (source) => source.pipe(tracker.wrap(scheduler), bench.operator(scheduler)),
    drainMs,
    (output, now) => {
      tracker.output(output, now);
      if ((++outputs & 1023) === 0) peak = Math.max(peak, heapUsed());
    },
  );
  peak = Math.max(peak, heapUsed());

  const n = Math.max(1, items.length);
  const perItem = (ns: number) => ns / n;
  return {
    name: bench.name,
    input: bench.input.name,
    clock,
    items: items.length,
    outputs,
    nsPerItem: { avg: perItem(stats.avg), min: perItem(stats.min), p50: perItem(stats.p50), p99: perItem(stats.p99), max: perItem(stats.max) },
    baseline: { name: baseline.name, nsPerItem: perItem(base.avg) },
    overheadNsPerItem: perItem(stats.avg) - perItem(base.avg),
    itemsPerSecond: 1e9 / Math.max(1e-9, perItem(stats.avg)),
    bytesPerItem: stats.heap ? Math.max(0, stats.heap.avg / n) : undefined,
    baselineBytesPerItem: base.heap ? Math.max(0, base.heap.avg / n) : undefined,
    latencyMs: tracker.percentiles(),
    spanMs: items.length > 0 ? items[items.length - 1]!.at - items[0]!.at : 0,
    peakHeapBytes: peak,
  };
}

/** One run on the real clock: it lasts as long as the input spans. */
async function realRun<T, R>(bench: OperatorBench<T, R>): Promise<BenchResult> {
  const items = bench.input.items;
  const tracker = latencyTracker(bench);
  let outputs = 0;
  let peak = heapUsed();
  const cpu0 = process.cpuUsage();
  await new Promise<void>((resolve, reject) => {
    feed(items, asyncScheduler)
      .pipe(tracker.wrap(asyncScheduler), bench.operator(asyncScheduler))
      .subscribe({
        next: (output) => {
          outputs++;
          tracker.output(output, asyncScheduler.now());
          if ((outputs & 1023) === 0) peak = Math.max(peak, heapUsed());
        },
        error: reject,
        complete: resolve,
      });
  });
  const cpu = process.cpuUsage(cpu0);
  const ns = ((cpu.user + cpu.system) * 1000) / Math.max(1, items.length);
  return {
    name: bench.name,
    input: bench.input.name,
    clock: 'real',
    items: items.length,
    outputs,
    nsPerItem: { avg: ns, min: ns, p50: ns, p99: ns, max: ns },
    baseline: undefined,
    overheadNsPerItem: undefined,
    itemsPerSecond: 1e9 / Math.max(1e-9, ns),
    bytesPerItem: undefined,
    baselineBytesPerItem: undefined,
    latencyMs: tracker.percentiles(),
    spanMs: items.length > 0 ? items[items.length - 1]!.at - items[0]!.at : 0,
    peakHeapBytes: Math.max(peak, heapUsed()),
  };
}
