import { benchOperator, type BenchResult, type OperatorBench } from './operator-bench.js';

/** One benchmark, its item types erased: what a benchmark file lists. */
export interface Benchmark {
  readonly name: string;
  run(): Promise<BenchResult>;
}

/** A benchmark file's default export: its benchmarks. */
export type BenchList = readonly Benchmark[];

/** A file's benchmarks (`svc bench FILE` runs the file's default export). */
export function defineBenchmarks(benches: readonly Benchmark[]): BenchList {
  return benches;
}

/** An OperatorBench as a Benchmark (`benchOperator` when run). */
export function operatorBenchmark<T, R>(spec: OperatorBench<T, R>): Benchmark {
  return { name: spec.name, run: () => benchOperator(spec) };
}

/** One bench over several runs: each run's result, their median, and how far they spread. */
export interface BenchSummary {
  readonly name: string;
  readonly runs: readonly BenchResult[];
  /** The median run's ns per item. */
  readonly nsPerItem: number;
  /** The median run's overhead over its baseline, ns per item. */
  readonly overheadNsPerItem: number | undefined;
  /** (slowest − fastest) / median of the runs' ns per item: the run-to-run noise. */
  readonly spread: number;
}

/** What `svc bench --json` writes, and what `--compare` reads back. */
export interface RunReport {
  readonly node: string;
  readonly date: string;
  readonly repeat: number;
  readonly benches: readonly BenchSummary[];
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * Runs every bench `repeat` times (default 3; the spread needs at least 2) and summarises each.
 * The runs go round by round (every bench's first run, then every bench's second, …), so a change
 * in the machine's state during the whole invocation lands in each bench's spread instead of
 * shifting one bench's runs together. In this process: benches share its JIT state (a bench run
 * after another may find shared code optimised for the other's types); `runIsolated` gives each run
 * a fresh process.
 */
export async function runBenchmarks(benches: BenchList, options: { repeat?: number; onResult?: (result: BenchResult, run: number) => void } = {}): Promise<RunReport> {
  return runRounds(
    benches.map((b) => b.name),
    (index) => benches[index]!.run(),
    options,
  );
}

/**
 * `repeat` rounds of `run(index)` for each named bench, round by round, summarised: what
 * `runBenchmarks` and `runIsolated` share.
 */
export async function runRounds(
  names: readonly string[],
  run: (index: number) => Promise<BenchResult>,
  options: { repeat?: number; onResult?: (result: BenchResult, run: number) => void },
): Promise<RunReport> {
  const repeat = Math.max(1, options.repeat ?? 3);
  const runs: BenchResult[][] = names.map(() => []);
  for (let round = 0; round < repeat; round++) {
    for (let index = 0; index < names.length; index++) {
      const result = await run(index);
      runs[index]!.push(result);
      options.onResult?.(result, round);
    }
  }
  return { node: process.version, date: new Date().toISOString(), repeat, benches: names.map((name, index) => summarise(name, runs[index]!)) };
}

function summarise(name: string, runs: readonly BenchResult[]): BenchSummary {
  const ns = runs.map((r) => r.nsPerItem.avg);
  const mid = median(ns);
  const overheads = runs.map((r) => r.overheadNsPerItem).filter((v): v is number => v !== undefined);
  return {
    name,
    runs,
    nsPerItem: mid,
    overheadNsPerItem: overheads.length > 0 ? median(overheads) : undefined,
    spread: mid > 0 ? (Math.max(...ns) - Math.min(...ns)) / mid : 0,
  };
}

/** One bench's change against an earlier run. */
export interface Comparison {
  readonly name: string;
  readonly before: number;
  readonly after: number;
  /** (after − before) / before. */
  readonly change: number;
  /** Both runs' spreads added (and at least `minNoise`): changes within it are noise. */
  readonly noise: number;
  readonly verdict: 'slower' | 'faster' | 'within noise' | 'new' | 'gone';
}

/**
 * Each bench of `after` against the same-named one of `before`. The noise of a change between two
 * medians is what each side's runs left uncertain: the sum of both spreads (at least `minNoise`,
 * default 5 %, so identical runs with no spread still need a real change). A change is flagged
 * only beyond it, and only when the runs do not overlap (every run of one side slower than every
 * run of the other). The runs must be independent for their spread to be the noise: a fresh
 * process each (`runIsolated`, what `svc bench` does), round by round; runs sharing one process's
 * JIT state can all be slow together, and their small spread then says nothing.
 */
export function compareReports(before: RunReport, after: RunReport, minNoise = 0.05): Comparison[] {
  const out: Comparison[] = [];
  const old = new Map(before.benches.map((b) => [b.name, b]));
  const range = (b: BenchSummary): [number, number] => {
    const ns = b.runs.length > 0 ? b.runs.map((r) => r.nsPerItem.avg) : [b.nsPerItem];
    return [Math.min(...ns), Math.max(...ns)];
  };
  for (const bench of after.benches) {
    const base = old.get(bench.name);
    old.delete(bench.name);
    if (!base) {
      out.push({ name: bench.name, before: NaN, after: bench.nsPerItem, change: NaN, noise: NaN, verdict: 'new' });
      continue;
    }
    const change = (bench.nsPerItem - base.nsPerItem) / base.nsPerItem;
    const noise = Math.max(base.spread + bench.spread, minNoise);
    const [baseLow, baseHigh] = range(base);
    const [low, high] = range(bench);
    const verdict = change > noise && low > baseHigh ? 'slower' : change < -noise && high < baseLow ? 'faster' : 'within noise';
    out.push({ name: bench.name, before: base.nsPerItem, after: bench.nsPerItem, change, noise, verdict });
  }
  for (const base of old.values()) out.push({ name: base.name, before: base.nsPerItem, after: NaN, change: NaN, noise: NaN, verdict: 'gone' });
  return out;
}

const fmt = (n: number | undefined, digits = 1): string =>
  n === undefined || Number.isNaN(n) ? '–' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const medianRun = (b: BenchSummary): BenchResult => [...b.runs].sort((x, y) => x.nsPerItem.avg - y.nsPerItem.avg)[b.runs.length >> 1]!;

/** A report as a Markdown table (what `svc bench` prints). */
export function formatReport(report: RunReport): string {
  const lines = [
    `node ${report.node}, ${report.repeat} run(s) each; ns are CPU time per item, the median run's; spread = (slowest − fastest) / median`,
    '',
    '| bench | input | ns/item | baseline ns/item | overhead ns/item | spread | items/s | bytes/item | latency p50 / p99 (ms) | outputs |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const b of report.benches) {
    const r = medianRun(b);
    const latency = r.latencyMs ? `${fmt(r.latencyMs.p50, 2)} / ${fmt(r.latencyMs.p99, 2)}${r.clock === 'virtual' ? ' virtual' : ''}` : '–';
    lines.push(
      `| ${b.name} | ${r.input} | ${fmt(b.nsPerItem)} | ${fmt(r.baseline?.nsPerItem)} | ${fmt(b.overheadNsPerItem)} | ${fmt(b.spread * 100, 1)} % | ${fmt(r.itemsPerSecond, 0)} | ${fmt(r.bytesPerItem, 0)} | ${latency} | ${r.outputs} |`,
    );
  }
  const replays = report.benches.map((b) => [b, medianRun(b)] as const).filter(([, r]) => r.controller !== undefined);
  if (replays.length > 0) {
    lines.push(
      '',
      'controller replays (the median run; ns/item above is CPU per recorded event, the answering server included):',
      '',
      '| bench | events | reconciles | reconciles/s | writes | writes/event | event → reconcile p50 / p99 (ms) | wall (ms) |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const [b, r] of replays) {
      const c = r.controller!;
      const latency = r.latencyMs ? `${fmt(r.latencyMs.p50, 2)} / ${fmt(r.latencyMs.p99, 2)}` : '–';
      lines.push(`| ${b.name} | ${c.events} | ${c.reconciles} | ${fmt(c.reconcilesPerSecond, 0)} | ${c.writes} | ${fmt(c.writesPerEvent, 2)} | ${latency} | ${fmt(c.wallMs, 0)} |`);
    }
  }
  return lines.join('\n');
}

/** Comparisons as a Markdown table (what `svc bench --compare` prints). */
export function formatComparison(comparisons: readonly Comparison[]): string {
  const lines = ['| bench | before ns/item | after ns/item | change | noise | verdict |', '| --- | --- | --- | --- | --- | --- |'];
  for (const c of comparisons) lines.push(`| ${c.name} | ${fmt(c.before)} | ${fmt(c.after)} | ${Number.isNaN(c.change) ? '–' : `${c.change >= 0 ? '+' : ''}${fmt(c.change * 100)} %`} | ${Number.isNaN(c.noise) ? '–' : `±${fmt(c.noise * 100)} %`} | ${c.verdict} |`);
  return lines.join('\n');
}
