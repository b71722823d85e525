// What happened in bench:dashboard's long frames (issue #25): for each gap between the page's
// animation frames over 50 ms, the page's own account of it — the Long Animation Frame entries
// (chromium's `long-animation-frame`: the frame's script, with the function each script ran, its
// style and layout) and long tasks that overlap it — and the scheduler's: how long each of
// chromium's threads (and the API server's main thread) ran and how long it waited runnable for a
// CPU during the gap (/proc schedstat, sampled by schedstat-sampler.ts). A frame late because of
// our script shows a long animation frame with the script named; one late because the renderer,
// its compositor or the GPU process's display compositor waited for a CPU shows as their wait.
import { readdirSync, readFileSync } from 'node:fs';
import type { SampledThread } from './schedstat-sampler.js';

/** A long frame: the gap between two animation frames, from the one before to the late one (epoch ms). */
export interface LongFrame {
  readonly start: number;
  readonly end: number;
}

/** A `long-animation-frame` entry as the page records it (epoch ms, durations in ms). */
export interface AnimationFrameEntry {
  readonly start: number;
  readonly duration: number;
  readonly blockingDuration: number;
  readonly renderStart: number;
  readonly styleAndLayoutStart: number;
  readonly scripts: readonly { readonly invoker: string; readonly fn: string; readonly duration: number; readonly layout: number }[];
}

/** A `longtask` entry (epoch ms). */
export interface LongTaskEntry {
  readonly start: number;
  readonly duration: number;
}

/** The threads worth sampling: each chromium process's main thread, its compositors and IO threads. */
const CHROMIUM_THREADS = new Set(['Compositor', 'VizCompositorTh', 'Chrome_IOThread', 'Chrome_ChildIOT', 'CompositorTileW']);

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** Chromium's processes under `rootPid` (the bench), with their type (browser, renderer, gpu-process, utility). */
export function chromiumProcesses(rootPid: number): { pid: number; type: string }[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    if (stat !== undefined) parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const descends = (pid: number): boolean => {
    for (let p = parents.get(pid), hops = 0; p !== undefined && hops < 20; p = parents.get(p), hops++) if (p === rootPid) return true;
    return false;
  };
  const processes: { pid: number; type: string }[] = [];
  for (const pid of parents.keys()) {
    if (!descends(pid) || read(`/proc/${pid}/comm`)?.trim() !== 'chromium') continue;
    const type = /--type=([a-z-]+)/.exec(read(`/proc/${pid}/cmdline`)?.replaceAll('\0', ' ') ?? '')?.[1] ?? 'browser';
    if (type !== 'zygote') processes.push({ pid, type });
  }
  return processes;
}

/** A process's thread ids (none once it is gone). */
export function threadIds(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
}

/** Chromium's threads worth sampling under `rootPid`, each labelled "<type> <pid> <thread>". */
export function chromiumThreads(rootPid: number): SampledThread[] {
  const threads: SampledThread[] = [];
  for (const { pid, type } of chromiumProcesses(rootPid))
    for (const tid of threadIds(pid)) {
      const comm = read(`/proc/${pid}/task/${tid}/comm`)?.trim() ?? '';
      if (tid !== pid && !CHROMIUM_THREADS.has(comm)) continue;
      threads.push({ label: `${type} ${pid} ${tid === pid ? 'main' : comm}`, path: `/proc/${pid}/task/${tid}/schedstat` });
    }
  return threads;
}

/** A process's main thread, to sample beside chromium's. */
export const mainThread = (label: string, pid: number): SampledThread => ({ label, path: `/proc/${pid}/task/${pid}/schedstat` });

interface Samples {
  readonly threads: readonly string[];
  readonly samples: readonly number[][];
}

const ms = (ns: number) => +(ns / 1e6).toFixed(1);

/** Run and wait (ms) of thread `i` between the last sample at or before `start` and the first at or after `end`. */
function across(data: Samples, i: number, start: number, end: number): { run: number; wait: number } | undefined {
  const { samples } = data;
  let a = 0;
  while (a + 1 < samples.length && samples[a + 1]![0]! <= start) a++;
  let b = a;
  while (b + 1 < samples.length && samples[b]![0]! < end) b++;
  const s0 = samples[a]!;
  const s1 = samples[b]!;
  if (s0[1 + 2 * i]! < 0 || s1[1 + 2 * i]! < 0) return undefined;
  return { run: ms(s1[1 + 2 * i]! - s0[1 + 2 * i]!), wait: ms(s1[2 + 2 * i]! - s0[2 + 2 * i]!) };
}

/**
 * Each long frame with what overlapped it, and the threads' share of waiting: over the long
 * frames against over the whole stream (wait per ms of wall time). `streamStart`/`streamEnd` in
 * epoch ms.
 */
export function explainLongFrames(options: {
  /** The processes of the page's browser: the other browser's threads, when two run, are left out. */
  readonly pids?: ReadonlySet<number>;
  readonly longFrames: readonly LongFrame[];
  readonly animationFrames: readonly AnimationFrameEntry[];
  readonly longTasks: readonly LongTaskEntry[];
  readonly sampled: Samples | undefined;
  readonly streamStart: number;
  readonly streamEnd: number;
}) {
  const { pids, longFrames, animationFrames, longTasks, sampled, streamStart, streamEnd } = options;
  const pidOf = (label: string) => Number(label.split(' ')[1]);
  const ours = (label: string) => label.startsWith('api-server') || label.startsWith('bench') || pids === undefined || pids.has(pidOf(label));
  const overlaps = (start: number, duration: number, frame: LongFrame) => start < frame.end && start + duration > frame.start;
  // The threads that matter: the renderer busiest over the stream (the page's), and every other's.
  const whole = sampled?.threads.filter(ours).map((label) => ({ label, ...(across(sampled, sampled.threads.indexOf(label), streamStart, streamEnd) ?? { run: 0, wait: 0 }) })) ?? [];
  const pageRenderer = whole.filter((t) => t.label.startsWith('renderer ') && t.label.endsWith(' main')).sort((a, b) => b.run - a.run)[0]?.label.split(' ')[1];
  const relevant = (label: string) => ours(label) && (!label.startsWith('renderer ') || label.split(' ')[1] === pageRenderer);
  const wall = streamEnd - streamStart;
  const frames = longFrames.map((frame) => {
    const threads: Record<string, [run: number, wait: number]> = {};
    if (sampled !== undefined)
      sampled.threads.forEach((label, i) => {
        const t = relevant(label) ? across(sampled, i, frame.start, frame.end) : undefined;
        if (t !== undefined && (t.run >= 1 || t.wait >= 1)) threads[label] = [t.run, t.wait];
      });
    return {
      atSecond: +((frame.start - streamStart) / 1000).toFixed(2),
      gapMs: +(frame.end - frame.start).toFixed(1),
      longAnimationFrames: animationFrames
        .filter((f) => overlaps(f.start, f.duration, frame))
        .map((f) => ({
          durationMs: Math.round(f.duration),
          blockingMs: Math.round(f.blockingDuration),
          renderStartMs: Math.round(f.renderStart - f.start),
          styleAndLayoutMs: f.styleAndLayoutStart > 0 ? Math.round(f.start + f.duration - f.styleAndLayoutStart) : 0,
          scripts: f.scripts.map((s) => `${s.invoker} ${s.fn} ${Math.round(s.duration)} ms`),
        })),
      longTasksMs: longTasks.filter((t) => overlaps(t.start, t.duration, frame)).map((t) => Math.round(t.duration)),
      // Per thread, [ran, waited for a CPU] in ms during the gap (≥ 1 ms of either).
      threads,
    };
  });
  // Wait per ms of wall time, per thread: over the long frames, and over the whole stream.
  const gapTotal = longFrames.reduce((sum, f) => sum + (f.end - f.start), 0);
  const waitShare = whole
    .filter((t) => relevant(t.label))
    .map((t) => {
      const i = sampled!.threads.indexOf(t.label);
      const inLong = longFrames.reduce((sum, f) => sum + (across(sampled!, i, f.start, f.end)?.wait ?? 0), 0);
      return { thread: t.label, ranPerSecond: +((1000 * t.run) / wall).toFixed(1), waitedPerSecondOverStream: +((1000 * t.wait) / wall).toFixed(1), waitedPerSecondInLongFrames: gapTotal === 0 ? 0 : +((1000 * inLong) / gapTotal).toFixed(1) };
    })
    .filter((t) => t.ranPerSecond >= 1 || t.waitedPerSecondInLongFrames >= 1);
  // Each long frame classed: the page's main thread ran for most of it (work: ours or chromium's
  // in our renderer), or one of the threads a frame needs — the renderer's main and compositor
  // threads, the display compositor — waited for a CPU for most of it (starved), or neither.
  const critical = (label: string) => (label.startsWith('renderer ') && (label.endsWith(' main') || label.endsWith(' Compositor'))) || label.endsWith(' VizCompositorTh');
  const classes = { ranOverHalf: 0, waitedOverHalf: 0, neither: 0 };
  for (const f of frames) {
    const main = Object.entries(f.threads).find(([label]) => label.startsWith('renderer ') && label.endsWith(' main'))?.[1][0] ?? 0;
    const wait = Math.max(0, ...Object.entries(f.threads).filter(([label]) => critical(label)).map(([, t]) => t[1]));
    if (main > f.gapMs / 2) classes.ranOverHalf++;
    else if (wait > f.gapMs / 2) classes.waitedOverHalf++;
    else classes.neither++;
  }
  return { classes, longFrames: frames.slice(0, 40), longFramesWithScript: frames.filter((f) => f.longAnimationFrames.some((a) => a.scripts.length > 0)).length, waitShareMsPerSecond: waitShare };
}
