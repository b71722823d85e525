// Operator benchmarks (issue #8): per-item overhead of each operator against a hand-written loop
// doing the same thing, and the work queue's add/get/done throughput with 10k keys.
//   npm run bench:operators                 (all)
//   npm run bench:operators -- workqueue    (a subset, by operator file name)
//   BENCH_MS=1000 npm run bench:operators   (CPU time per measurement, default 400 ms)
import * as batch from './batch.js';
import * as concurrency from './concurrency.js';
import * as leaderElection from './leaderElection.js';
import * as mergeByKey from './mergeByKey.js';
import * as rateLimit from './rateLimit.js';
import * as resync from './resync.js';
import { formatReport, runBenchmarks } from '../../src/bench/index.js';
import harnessed from './operators.bench.js';
import type { PerItemRow } from './support.js';
import * as workqueue from './workqueue.js';

const benches: Record<string, { run(): Promise<PerItemRow[]> }> = {
  workqueue,
  rateLimit,
  batch,
  concurrency,
  resync,
  leaderElection,
  mergeByKey,
};
const GOAL_NS: Record<string, number> = { workqueue: 1000, rateLimit: 1000 };

const only = process.argv.slice(2);
const selected = Object.entries(benches).filter(([name]) => only.length === 0 || only.includes(name));
// Moved onto svc/bench (operators.bench.ts): its table, repeat runs and spread.
const onHarness = harnessed.filter((bench) => only.length === 0 || only.includes(bench.name));
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

if (onHarness.length > 0) console.log(`${formatReport(await runBenchmarks(onHarness, { repeat: 3 }))}\n`);
if (selected.length > 0) {
  console.log(`node ${process.version}, ${process.platform}/${process.arch}\n`);
  console.log('| operator | case | operator ns/item | hand-written loop ns/item | overhead ns/item | goal |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const [, bench] of selected) {
    for (const row of await bench.run()) {
      const overhead = row.operatorNs - row.loopNs;
      const goal = GOAL_NS[row.operator];
      const verdict = goal === undefined ? '' : `≤ ${fmt(goal)} ns: ${overhead <= goal ? 'met' : 'missed'}`;
      console.log(`| ${row.operator} | ${row.case} | ${fmt(row.operatorNs, 1)} | ${fmt(row.loopNs, 1)} | ${fmt(overhead, 1)} | ${verdict} |`);
    }
  }
}

if (only.length === 0 || only.includes('workqueue')) {
  console.log('\n| workqueue throughput, 10k keys | adds | runs (get + done) | ms | adds/s | runs/s | goal ≥ 100k add/get/done per s |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const row of await workqueue.throughput()) {
    const addsPerS = (row.adds * 1000) / row.ms;
    const runsPerS = (row.runs * 1000) / row.ms;
    const goal = row.runs === row.adds ? (runsPerS >= 100_000 ? 'met' : 'missed') : `adds ${addsPerS >= 100_000 ? 'met' : 'missed'}`;
    console.log(`| ${row.case} | ${fmt(row.adds)} | ${fmt(row.runs)} | ${fmt(row.ms, 1)} | ${fmt(addsPerS)} | ${fmt(runsPerS)} | ${goal} |`);
  }
}
