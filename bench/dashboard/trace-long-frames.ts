// What chromium's trace says of bench:dashboard's long frames (TRACE_PAGE=<file>.json): for each
// `svc-long-frame` measure the page made (a gap between animation frames over 50 ms), what the
// renderer's main thread, its compositor thread and the GPU process's display compositor did in
// it — the wall time of their tasks against their CPU time (a trace event's `dur` against its
// `tdur`: the difference is time the thread was runnable or blocked, not running), the time with
// no task at all, the longest tasks with their longest inner events, and every GC.
//   node --import tsx bench/dashboard/trace-long-frames.ts <trace>.json
import { readFileSync } from 'node:fs';

interface TraceEvent {
  readonly name: string;
  readonly cat?: string;
  readonly ph: string;
  readonly ts: number;
  readonly dur?: number;
  readonly tdur?: number;
  readonly pid: number;
  readonly tid: number;
  readonly args?: { readonly name?: string };
}

const file = process.argv[2];
if (file === undefined) throw new Error('usage: trace-long-frames.ts <trace>.json');
const parsed = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);

const threadNames = new Map<string, string>();
for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threadNames.set(`${e.pid}:${e.tid}`, e.args?.name ?? '');
const threadOf = (name: string, pid?: number) => [...threadNames].filter(([key, n]) => n === name && (pid === undefined || key.startsWith(`${pid}:`))).map(([key]) => key);

// The page's long frames: its measures' begin and end (async events), in the trace's clock (µs).
const begins = new Map<string, TraceEvent>();
const frames: { start: number; end: number; pid: number }[] = [];
for (const e of events) {
  if (e.name !== 'svc-long-frame') continue;
  const id = String((e as { id?: string; id2?: { local?: string } }).id ?? (e as { id2?: { local?: string } }).id2?.local);
  if (e.ph === 'b') begins.set(id, e);
  if (e.ph === 'e' && begins.has(id)) frames.push({ start: begins.get(id)!.ts, end: e.ts, pid: e.pid });
}
frames.sort((a, b) => a.start - b.start);
const rendererPid = frames[0]?.pid;
const threads = {
  main: threadOf('CrRendererMain', rendererPid),
  compositor: threadOf('Compositor', rendererPid),
  viz: threadOf('VizCompositorThread'),
};

/** Complete events by thread, sorted by start. */
const byThread = new Map<string, TraceEvent[]>();
for (const e of events) {
  if (e.ph !== 'X' || e.dur === undefined) continue;
  const key = `${e.pid}:${e.tid}`;
  let list = byThread.get(key);
  if (list === undefined) byThread.set(key, (list = []));
  list.push(e);
}
for (const list of byThread.values()) list.sort((a, b) => a.ts - b.ts);

const TOP_LEVEL = new Set(['ThreadControllerImpl::RunTask', 'RunTask', 'ThreadPool_RunTask']);
const r = (us: number) => +(us / 1000).toFixed(1);

/** One thread in [start, end]: its top-level tasks' wall and CPU time (clipped to the window), the longest tasks and GCs. */
function inWindow(keys: string[], start: number, end: number) {
  let wall = 0;
  let cpu = 0;
  const tasks: { at: number; wallMs: number; cpuMs: number; inner: string[] }[] = [];
  const gcs: string[] = [];
  for (const key of keys) {
    const list = byThread.get(key) ?? [];
    // A task is traced under more than one top-level name, nested: only the outermost counts.
    let outerEnd = -Infinity;
    for (const e of list) {
      if (e.ts >= end) break;
      const eEnd = e.ts + e.dur!;
      if (eEnd <= start) continue;
      if (/GC|Scavenge|MarkCompact/i.test(e.name) && e.dur! >= 500) gcs.push(`${e.name} ${r(e.dur!)}/${r(e.tdur ?? e.dur!)} ms`);
      if (!TOP_LEVEL.has(e.name) || e.ts < outerEnd) continue;
      outerEnd = eEnd;
      const clipped = Math.min(eEnd, end) - Math.max(e.ts, start);
      wall += clipped;
      cpu += (e.tdur ?? e.dur!) * (clipped / e.dur!);
      if (e.dur! >= 5_000) {
        const inner = list
          .filter((c) => c !== e && c.ts >= e.ts && c.ts + c.dur! <= eEnd && c.dur! >= 1_000 && !TOP_LEVEL.has(c.name))
          .sort((a, b) => b.dur! - a.dur!)
          .slice(0, 4)
          .map((c) => `${c.name} ${r(c.dur!)}/${r(c.tdur ?? c.dur!)} ms`);
        tasks.push({ at: r(e.ts - start), wallMs: r(e.dur!), cpuMs: r(e.tdur ?? e.dur!), inner });
      }
    }
  }
  return { tasksWallMs: r(wall), tasksCpuMs: r(cpu), noTaskMs: r(end - start - wall), longTasks: tasks, gcs: [...new Set(gcs)] };
}

const report = frames.map((f) => ({
  gapMs: r(f.end - f.start),
  rendererMain: inWindow(threads.main, f.start, f.end),
  rendererCompositor: inWindow(threads.compositor, f.start, f.end),
  displayCompositor: inWindow(threads.viz, f.start, f.end),
}));
const sum = (pick: (x: (typeof report)[number]) => number) => +report.reduce((s, x) => s + pick(x), 0).toFixed(1);
// Over the whole trace, for comparison: the renderer main thread's task wall and CPU per second.
let first = Infinity;
let last = -Infinity;
for (const e of events) if (e.ph === 'X') [first, last] = [Math.min(first, e.ts), Math.max(last, e.ts)];
const whole = inWindow(threads.main, first, last);
const seconds = (last - first) / 1e6;
console.log(
  JSON.stringify(
    {
      longFrames: frames.length,
      threads,
      totals: {
        gapMs: sum((x) => x.gapMs),
        rendererMainTasksWallMs: sum((x) => x.rendererMain.tasksWallMs),
        rendererMainTasksCpuMs: sum((x) => x.rendererMain.tasksCpuMs),
        rendererMainNoTaskMs: sum((x) => x.rendererMain.noTaskMs),
        framesWithAMainTaskOver16MsCpu: report.filter((x) => x.rendererMain.longTasks.some((t) => t.cpuMs > 16)).length,
        framesWithAGcOver5MsCpu: report.filter((x) => x.rendererMain.gcs.some((g) => Number(/\/([\d.]+) ms$/.exec(g)?.[1]) > 5)).length,
      },
      wholeTraceRendererMainPerSecond: { seconds: +seconds.toFixed(1), tasksWallMs: +(whole.tasksWallMs / seconds).toFixed(1), tasksCpuMs: +(whole.tasksCpuMs / seconds).toFixed(1) },
      frames: report,
    },
    null,
    2,
  ),
);
