// Operator benchmarks (issues #8, #30), on svc/bench: per-item overhead of each operator against a
// hand-written loop doing the same, the work queue's add/get/done throughput with 10k keys, and
// rateLimit and batch over ten virtual minutes. Each run in a fresh process (as `svc bench`).
//   npm run bench:operators                 (all)
//   npm run bench:operators -- workqueue    (those whose name starts with one of the words)
//   BENCH_MS=1000 npm run bench:operators   (CPU time per measurement, default 400 ms)
import { fileURLToPath } from 'node:url';
import { formatReport, runIsolated } from '../../src/bench/index.js';

const GOAL_NS: Record<string, number> = { workqueue: 1000, rateLimit: 1000 };
const only = process.argv.slice(2);
const file = fileURLToPath(new URL('./operators.bench.ts', import.meta.url));
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const report = await runIsolated([file], {
  repeat: 3,
  only: (name) => only.length === 0 || only.some((word) => name.startsWith(word)),
  onResult: (result, run) => console.error(`${result.name}: run ${run + 1}: ${result.nsPerItem.avg.toFixed(1)} ns/item`),
});
console.log(formatReport(report));

// The goals of issue #8: an operator's overhead over the loop by hand, and the queue's cycles/s.
const goals: string[] = [];
for (const bench of report.benches) {
  const goal = GOAL_NS[bench.name];
  if (goal !== undefined && bench.overheadNsPerItem !== undefined) goals.push(`| ${bench.name} overhead ≤ ${fmt(goal)} ns/item | ${fmt(bench.overheadNsPerItem, 1)} | ${bench.overheadNsPerItem <= goal ? 'met' : 'missed'} |`);
  if (bench.name.startsWith('workqueue throughput')) {
    const perSecond = 1e9 / bench.nsPerItem;
    goals.push(`| ${bench.name} ≥ 100k add/get/done per CPU second | ${fmt(perSecond)} | ${perSecond >= 100_000 ? 'met' : 'missed'} |`);
  }
}
if (goals.length > 0) console.log(['', '| goal | measured | verdict |', '| --- | --- | --- |', ...goals].join('\n'));
