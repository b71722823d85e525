// Public surface of src/bench/ (`svc/bench`): benchmark an operator or a whole controller pipeline
// as a user — synthetic or recorded input, a baseline, the virtual clock for timers, repeat runs
// with their noise, comparison with an earlier run (docs/benchmarking.md).
export { readCorpus, recordedEvents, syntheticEvents } from './input.js';
export type { BenchInput, RecordedOptions, SyntheticOptions, Timed, WatchEvent } from './input.js';
export { benchOperator } from './operator-bench.js';
export type { Baseline, BenchResult, OperatorBench, Percentiles } from './operator-bench.js';
export { compareReports, defineBenchmarks, formatComparison, formatReport, operatorBenchmark, runBenchmarks, runRounds } from './runs.js';
export { BenchFileError, loadBenchFile } from './bench-file.js';
export { runIsolated } from './isolated-runs.js';
export type { Benchmark, BenchList, BenchSummary, Comparison, RunReport } from './runs.js';
export { benchController, controllerBenchmark } from './controller-bench.js';
export type { ControllerBench, ControllerBenchResult, ReplayPace } from './controller-bench.js';
export type { ControllerFigures } from './controller-figures.js';
