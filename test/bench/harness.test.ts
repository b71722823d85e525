/**
 * svc/bench, the benchmark harness: a known-cost operator measured as what it costs, timers on the
 * virtual clock (a 10-minute window of rateLimit and batch), latency from item to output, recorded
 * input, and `svc bench --compare`'s verdicts (the rule on reports made by hand, the CLI against a
 * real run).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure } from 'mitata';
import { describe, expect, it } from 'vitest';
import { batch, rateLimit } from '../../operators/index.js';
import { benchOperator, compareReports, recordedEvents, runBenchmarks, syntheticEvents, type RunReport } from '../../src/bench/index.js';
import { bench } from '../../src/cli/bench-command.js';
import { parseRecording, toNdjson } from '../../src/testing/index.js';
import { busy, busyOperator } from './fixtures/busy.js';

describe('benchOperator', () => {
  it('measures a busy loop of known cost as that cost per item, over the baseline', async () => {
    const ROUNDS = 20_000;
    // The busy loop alone, on the harness's clock (CPU time: a loaded machine does not stretch it).
    const cpuNow = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) * 1000;
    };
    const alone = await measure(() => busy(ROUNDS), { min_cpu_time: 200e6, now: cpuNow });
    const result = await benchOperator({ name: 'busy', operator: () => busyOperator(ROUNDS), input: syntheticEvents({ keys: 10, events: 500 }), minCpuMs: 200 });
    expect(result.items).toBe(500);
    expect(result.outputs).toBe(500);
    expect(result.baseline?.name).toBe('fed through nothing');
    // Per item, not per run (a run is 500 items): the overhead is one busy loop, within a factor
    // that leaves room for a loaded machine but not for a counting mistake.
    const ratio = result.overheadNsPerItem! / alone.avg;
    console.info(`busy loop alone ${alone.avg.toFixed(0)} ns; measured overhead ${result.overheadNsPerItem!.toFixed(0)} ns/item (ratio ${ratio.toFixed(2)})`);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });

  it('runs rateLimit over a 10-minute window on the virtual clock: latencies in virtual minutes, every item through', async () => {
    // 100 items/s offered for 10 minutes to a limit of 50/s: the queue grows to 5 minutes.
    const input = syntheticEvents({ keys: 1_000, events: 60_000, ratePerSecond: 100 });
    const started = performance.now();
    const result = await benchOperator({ name: 'rateLimit 50/s', operator: (scheduler) => rateLimit({ qps: 50, burst: 1, scheduler }), input, drainMs: 20 * 60_000, minCpuMs: 1 });
    console.info(`rateLimit, 10 virtual minutes: ${(performance.now() - started).toFixed(0)} ms of wall time for the whole benchmark`);
    expect(result.spanMs).toBeCloseTo(599_990, 0);
    expect(result.outputs).toBe(60_000);
    // The last item waits for half the window: 60,000 items at 50/s take 20 minutes.
    expect(result.latencyMs!.max).toBeGreaterThan(9 * 60_000);
    expect(result.latencyMs!.p50).toBeGreaterThan(60_000);
  });

  it('runs batch windows on the virtual clock and matches items to the batches that carry them by key', async () => {
    const input = syntheticEvents({ keys: 500, events: 60_000, ratePerSecond: 100 });
    const result = await benchOperator({
      name: 'batch 1 s / 50',
      operator: (scheduler) => batch<{ object: { metadata: { name?: string } } }>({ period: 1_000, max: 50, scheduler }),
      input,
      keyOf: (event) => event.object.metadata.name!,
      outputKeys: (events) => events.map((event) => event.object.metadata.name!),
      minCpuMs: 1,
    });
    expect(result.outputs).toBeGreaterThan(60_000 / 50 - 1);
    // No item waits longer than one window.
    expect(result.latencyMs!.max).toBeLessThanOrEqual(1_000);
  });

  it('compares against a hand-written loop as the baseline', async () => {
    const input = syntheticEvents({ keys: 10, events: 1_000 });
    const result = await benchOperator({
      name: 'busy vs loop',
      operator: () => busyOperator(1_000),
      baseline: { name: 'by hand', loop: (items) => items.forEach(() => busy(1_000)) },
      input,
      minCpuMs: 50,
    });
    expect(result.baseline).toMatchObject({ name: 'by hand' });
    expect(result.baseline!.nsPerItem).toBeGreaterThan(0);
  });

  it('reads recorded input: a source\'s SYNCED objects as ADDED, then its events at their times; a header line is not an event', () => {
    const object = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'a' } });
    const ndjson = toNdjson([
      { at: 0, header: { corpus: 'test', runtime: 'SIMULATED' } },
      { at: 1, source: 'pods', type: 'SYNCED', objects: [object('a'), object('b')] },
      { at: 5, source: 'pods', type: 'MODIFIED', object: object('a') },
      { at: 6, source: 'nodes', type: 'ADDED', object: object('n') },
      { at: 7, write: { method: 'POST', path: '/x', code: 201 } },
    ]);
    const input = recordedEvents(ndjson, { source: 'pods' });
    expect(input.items.map((i) => [i.at, i.value.type, i.value.object.metadata.name])).toEqual([
      [1, 'ADDED', 'a'],
      [1, 'ADDED', 'b'],
      [5, 'MODIFIED', 'a'],
    ]);
    // The test kit reads the header too (a replay skips it), and a line of no known kind is refused.
    expect(parseRecording(ndjson)[0]).toEqual({ at: 0, header: { corpus: 'test', runtime: 'SIMULATED' } });
    expect(() => parseRecording('{"at":0,"what":1}\n')).toThrow('line 1: neither an event, a write, a result nor a header');
  });
});

describe('svc bench and --compare', () => {
  const fixtures = new URL('./fixtures/', import.meta.url).pathname;
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) } };
  };

  // Reports made by hand: the verdict rule on figures, apart from any machine's timing.
  const summary = (name: string, runs: readonly number[]): RunReport['benches'][number] => {
    const sorted = [...runs].sort((a, b) => a - b);
    const mid = sorted.length % 2 === 1 ? sorted[sorted.length >> 1]! : (sorted[(sorted.length >> 1) - 1]! + sorted[sorted.length >> 1]!) / 2;
    const result = (ns: number) => ({ nsPerItem: { avg: ns, min: ns, p50: ns, p99: ns, max: ns } }) as RunReport['benches'][number]['runs'][number];
    return { name, runs: runs.map(result), nsPerItem: mid, overheadNsPerItem: undefined, spread: (sorted.at(-1)! - sorted[0]!) / mid };
  };
  const report = (...benches: RunReport['benches']): RunReport => ({ node: 'v0', date: '2026-01-01T00:00:00.000Z', repeat: benches[0]?.runs.length ?? 0, benches });

  it('flags a change only beyond both spreads and with no run of one side overlapping the other', () => {
    const before = report(summary('steady', [100, 102, 104, 101]), summary('wobbly', [100, 150, 110, 120]), summary('gone', [5, 5]));
    const after = report(
      summary('steady', [300, 310, 305, 320]), // 3x, every run beyond every base run: slower
      summary('wobbly', [140, 160, 170, 180]), // +41 % but the runs overlap the base's 150: noise
      summary('new', [7, 7]),
    );
    const verdicts = Object.fromEntries(compareReports(before, after).map((c) => [c.name, c.verdict]));
    expect(verdicts).toEqual({ steady: 'slower', wobbly: 'within noise', new: 'new', gone: 'gone' });
    expect(compareReports(after, before).find((c) => c.name === 'steady')!.verdict).toBe('faster');
    // A shift beyond the overlap but not beyond both spreads (and the 5 % floor) is noise too.
    const close = compareReports(report(summary('steady', [100, 100, 100, 100])), report(summary('steady', [103, 104, 103, 104])))[0]!;
    expect(close).toMatchObject({ verdict: 'within noise', noise: 0.05 });
  });

  it('svc bench --compare prints the verdict of each benchmark against a --json report and --fail-on-slower fails on "slower"', async () => {
    // Real runs, each in its own process (svc bench's default), make the report --compare reads.
    // The reports compared against are that one with its figures moved by a factor no machine's
    // load could make up (a million) and a spread set by hand; the runs compared are one each, so
    // their own spread is 0. The verdicts then depend on the CLI's wiring, not on timing; the rule
    // itself is the test above.
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
    const first = io();
    expect(await bench(['--json', '--repeat=2', join(fixtures, 'busy.bench.ts')], first.io)).toBe(0);
    const measured = JSON.parse(first.out.join('\n')) as RunReport;
    expect(measured.benches.map((b) => [b.name, b.runs.length])).toEqual([['busy', 2]]);
    const scaled = (factor: number, spread?: number): string => {
      const file = join(dir, `base-${factor}-${spread ?? 'measured'}.json`);
      const benches = measured.benches.map((b) => ({
        ...b,
        nsPerItem: b.nsPerItem * factor,
        spread: spread ?? b.spread,
        runs: b.runs.map((r) => ({ ...r, nsPerItem: { ...r.nsPerItem, avg: r.nsPerItem.avg * factor } })),
      }));
      writeFileSync(file, JSON.stringify({ ...measured, benches }));
      return file;
    };

    const slower = io();
    expect(await bench(['--repeat=1', `--compare=${scaled(1e-6, 0)}`, '--fail-on-slower', join(fixtures, 'busy.bench.ts')], slower.io)).toBe(1);
    expect(slower.out.join('\n')).toMatch(/\| busy \|[^\n]*\| slower \|/);

    const faster = io();
    expect(await bench(['--repeat=1', `--compare=${scaled(1e6, 0)}`, '--fail-on-slower', join(fixtures, 'busy.bench.ts')], faster.io)).toBe(0);
    expect(faster.out.join('\n')).toMatch(/\| busy \|[^\n]*\| faster \|/);

    // The same million-fold change, inside a base whose own runs spread wider still: noise.
    const noisy = io();
    expect(await bench(['--repeat=1', `--compare=${scaled(1e-6, 1e7)}`, '--fail-on-slower', join(fixtures, 'busy.bench.ts')], noisy.io)).toBe(0);
    expect(noisy.out.join('\n')).toMatch(/\| busy \|[^\n]*\| within noise \|/);
  }, 180_000);

  it('needs a noise estimate before it flags: identical reports are within noise', async () => {
    const report = await runBenchmarks([{ name: 'same', run: () => benchOperator({ name: 'same', operator: () => busyOperator(500), input: syntheticEvents({ keys: 10, events: 500 }), minCpuMs: 50 }) }], { repeat: 2 });
    expect(compareReports(report, report)[0]).toMatchObject({ verdict: 'within noise', change: 0 });
  });

  it('refuses a file without a defineBenchmarks default export, and a missing --compare file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
    writeFileSync(join(dir, 'empty.mjs'), 'export default 42;\n');
    const a = io();
    expect(await bench([join(dir, 'empty.mjs')], a.io)).toBe(1);
    expect(a.err.join('\n')).toContain('has no default export made with defineBenchmarks');
    const b = io();
    expect(await bench([`--compare=${join(dir, 'nope.json')}`, join(dir, 'empty.mjs')], b.io)).toBe(1);
    expect(b.err.join('\n')).toContain('cannot read');
  });

  it('runs only the benchmarks --filter matches, and refuses a filter that is no regular expression or matches none', async () => {
    const some = io();
    expect(await bench(['--isolate=false', '--repeat=1', '--json', '--filter=^bus', join(fixtures, 'busy.bench.ts')], some.io)).toBe(0);
    expect((JSON.parse(some.out.join('\n')) as RunReport).benches.map((b) => b.name)).toEqual(['busy']);
    const none = io();
    expect(await bench(['--filter=nothing-called-this', join(fixtures, 'busy.bench.ts')], none.io)).toBe(1);
    expect(none.err.join('\n')).toContain("no benchmark's name matches --filter nothing-called-this");
    const bad = io();
    expect(await bench(['--filter=(', join(fixtures, 'busy.bench.ts')], bad.io)).toBe(2);
    expect(bad.err.join('\n')).toContain('--filter');
  });
});
