import { readFileSync } from 'node:fs';
import { compareReports, formatComparison, formatReport, loadBenchFile, runBenchmarks, runIsolated, type Benchmark, type BenchResult, type RunReport } from '../bench/index.js';
import { EXIT_FAILED, EXIT_OK, reportFlagError, type CommandIO } from './command.js';
import { renderHelp, type CommandDoc } from './flag-docs.js';
import { flag } from './flag-spec.js';
import { defineFlags, FlagError, parseFlags } from './flags.js';

const regexpError = (source: string): string | undefined => {
  try {
    new RegExp(source);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

/**
 * `svc bench FILE...`: runs the benchmarks each file exports by default (`defineBenchmarks` from
 * svc/bench) and prints one table; `--json` prints the report for CI, `--compare` the change
 * against an earlier `--json` report, flagging only what is beyond both runs' noise.
 */
export const benchFlags = defineFlags({
  json: flag.bool({ default: false, meaning: 'Print the report as JSON (what --compare reads) instead of a table.' }),
  compare: flag.string({ valueName: 'file', meaning: 'An earlier --json report: print each benchmark\'s change against it, flagged only beyond both runs\' spread (and 5 %).' }),
  repeat: flag.int({ default: 3, meaning: 'Runs of each benchmark; the median is reported and the spread is their noise (at least 2 for a spread).', validate: (n) => (n >= 1 ? undefined : 'must be at least 1') }),
  isolate: flag.bool({ default: true, meaning: 'Run each run of each benchmark in a fresh Node process (forked with this one\'s flags), so runs are independent: none inherits another\'s JIT state. --isolate=false runs them all in this process (faster; the figures then depend on what ran before).' }),
  filter: flag.string({ valueName: 'regexp', meaning: 'Run only the benchmarks whose name matches this regular expression (--filter churn).', validate: regexpError }),
  'fail-on-slower': flag.bool({ default: false, meaning: 'With --compare: exit 1 when a benchmark got slower beyond the noise (for CI).' }),
});

export const benchDoc: CommandDoc = {
  name: 'svc bench',
  usage: 'svc bench [flags] FILE...',
  summary:
    'Runs the benchmarks each FILE exports by default (made with defineBenchmarks from svc/bench: an operator or a controller pipeline over synthetic or recorded input, against a baseline, on the virtual clock), REPEAT times each (each run a fresh Node process, round by round, unless --isolate=false), and prints a table of CPU time, allocations, throughput and latency per item with the run-to-run spread. FILE is a JavaScript module (TypeScript when node runs with a loader such as tsx). docs/benchmarking.md.',
  source: 'src/cli/bench-command.ts',
};

export async function bench(argv: readonly string[], io: CommandIO): Promise<number> {
  let parsed: ReturnType<typeof parseFlags<typeof benchFlags>>;
  try {
    parsed = parseFlags(benchFlags, argv);
    if (parsed.help) {
      io.out(renderHelp(benchDoc, benchFlags).trimEnd());
      return EXIT_OK;
    }
    if (parsed.args.length === 0) throw new FlagError('no benchmark file given');
  } catch (error) {
    if (error instanceof FlagError) return reportFlagError(benchDoc, error, io);
    throw error;
  }
  const { values } = parsed;
  let before: RunReport | undefined;
  if (values.compare !== undefined) {
    try {
      before = JSON.parse(readFileSync(values.compare, 'utf8')) as RunReport;
      if (!Array.isArray(before.benches)) throw new Error('no "benches" list');
    } catch (error) {
      io.err(`${benchDoc.name}: cannot read ${values.compare}: ${error instanceof Error ? error.message : String(error)}`);
      return EXIT_FAILED;
    }
  }
  const onResult = values.json ? undefined : (result: BenchResult, run: number) => io.err(`${result.name}: run ${run + 1}: ${result.nsPerItem.avg.toFixed(1)} ns/item`);
  const pattern = values.filter === undefined ? undefined : new RegExp(values.filter);
  const only = (name: string): boolean => pattern?.test(name) ?? true;
  let report: RunReport;
  try {
    if (values.isolate) report = await runIsolated(parsed.args, { repeat: values.repeat, only, ...(onResult ? { onResult } : {}) });
    else {
      const benches: Benchmark[] = [];
      for (const file of parsed.args) benches.push(...(await loadBenchFile(file)).filter((b) => only(b.name)));
      report = await runBenchmarks(benches, { repeat: values.repeat, ...(onResult ? { onResult } : {}) });
    }
    if (report.benches.length === 0) throw new Error(`no benchmark's name matches --filter ${values.filter ?? ''}`);
  } catch (error) {
    // A file that cannot be used, or a run whose process failed: said, not thrown.
    if (!(error instanceof Error)) throw error;
    io.err(`${benchDoc.name}: ${error.message}`);
    return EXIT_FAILED;
  }
  if (values.json) io.out(JSON.stringify(report, null, 2));
  else io.out(formatReport(report));
  if (before) {
    const comparisons = compareReports(before, report);
    if (!values.json) io.out(`\n${formatComparison(comparisons)}`);
    if (values.failOnSlower && comparisons.some((c) => c.verdict === 'slower')) return EXIT_FAILED;
  }
  return EXIT_OK;
}
