// A V8 CPU profile (.cpuprofile) cut into shares: each sample goes to the category of the
// innermost frame of its stack that some category claims (by the frame's source file or
// function name), so work a write does synchronously for its watchers (the store's commit hands
// the event to every watch on the same stack) counts as delivery, not as the write's. Also the
// functions with the most self time. Used by bench:dashboard's PROFILE_SERVER, and on its own:
//   node --import tsx bench/support/profile-split.ts <file>.cpuprofile
import { readFileSync } from 'node:fs';

export interface ProfileNode {
  readonly id: number;
  readonly hitCount?: number;
  readonly children?: readonly number[];
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

/** A share: a name and the frames it claims. */
export interface Category {
  readonly name: string;
  readonly claims: (frame: ProfileNode['callFrame']) => boolean;
}

const byUrl = (pattern: RegExp) => (frame: ProfileNode['callFrame']) => pattern.test(frame.url);

/**
 * The API server's work per watch event against the rest, innermost first: a frame of the watch
 * stream, the watch cache's hand-out or a view's encoding is delivery; then the request's own
 * layers (handlers, writes, admission, the store) are the write path; HTTP parsing and TLS that
 * no svc frame claims stay "node/http (unclaimed)".
 */
export const SERVER_CATEGORIES: readonly Category[] = [
  { name: 'delivery: watch stream (src/apiserver/watch, handlers/watch.ts)', claims: byUrl(/src\/apiserver\/(watch\/|handlers\/watch\.ts)/) },
  { name: 'delivery: views and frames (src/encoding render/views/columns)', claims: byUrl(/src\/encoding\/(render|views|columns|printer-columns|response-codecs|json-value)\.ts/) },
  { name: 'delivery: watch cache hand-out (src/watch-cache)', claims: byUrl(/src\/watch-cache\//) },
  { name: 'write path (src/apiserver handlers/writes/admission/request, src/api)', claims: byUrl(/src\/apiserver\/|src\/api\//) },
  { name: 'store (src/storage)', claims: byUrl(/src\/storage\//) },
  { name: 'client/testing (src/testing)', claims: byUrl(/src\/testing\//) },
  { name: 'fastify and its plugins', claims: byUrl(/node_modules\/(fastify|@fastify|find-my-way|avvio|light-my-request|fast-json-stringify)/) },
  { name: '(garbage collector)', claims: (f) => f.functionName === '(garbage collector)' },
  { name: '(idle)', claims: (f) => f.functionName === '(idle)' },
];

/** Each category's share of the profile's samples (ms and %), and the top self-time functions. */
export function splitProfile(profile: CpuProfile, categories: readonly Category[] = SERVER_CATEGORIES, top = 20) {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  // The first frame from a sample's own outwards that `pick` names, memoized per node.
  const innermost = (pick: (frame: ProfileNode['callFrame']) => string | undefined, fallback: string) => {
    const memo = new Map<number, string>();
    return (id: number): string => {
      let name = memo.get(id);
      if (name !== undefined) return name;
      for (let at: number | undefined = id; at !== undefined && name === undefined; at = parent.get(at)) name = pick(nodes.get(at)!.callFrame);
      name ??= fallback;
      memo.set(id, name);
      return name;
    };
  };
  const classify = innermost((frame) => categories.find((c) => c.claims(frame))?.name, 'unclaimed (node internals, TLS, HTTP)');
  // Sampled time per node: the samples' time deltas when present, else hit counts at the mean interval.
  const timeOf = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  if (samples.length > 0) {
    for (let i = 0; i < samples.length; i++) timeOf.set(samples[i]!, (timeOf.get(samples[i]!) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0));
  } else {
    const hits = profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
    const interval = (profile.endTime - profile.startTime) / Math.max(1, hits);
    for (const n of profile.nodes) timeOf.set(n.id, (n.hitCount ?? 0) * interval);
  }
  // The innermost svc frame (src/ or controllers/) of each sample, by file: where svc's own code
  // spent the time, with the library and node frames it called counted to it.
  const innermostSvcFile = innermost(({ url, functionName }) => {
    if (functionName === '(garbage collector)' || functionName === '(idle)' || functionName === '(program)') return functionName;
    const match = /\/((?:src|controllers)\/.*)$/.exec(url);
    return match && !url.includes('node_modules') ? match[1] : undefined;
  }, '(no svc frame)');
  const byFile = new Map<string, number>();
  const shares = new Map<string, number>();
  const self = new Map<string, number>();
  let total = 0;
  let busy = 0;
  for (const [id, micros] of timeOf) {
    const category = classify(id);
    shares.set(category, (shares.get(category) ?? 0) + micros);
    total += micros;
    if (category !== '(idle)') busy += micros;
    const file = innermostSvcFile(id);
    byFile.set(file, (byFile.get(file) ?? 0) + micros);
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    const fn = `${functionName || '(anonymous)'}${url === '' ? '' : ` ${url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${lineNumber + 1}`}`;
    self.set(fn, (self.get(fn) ?? 0) + micros);
  }
  const pct = (micros: number, of: number) => +((100 * micros) / Math.max(1, of)).toFixed(1);
  return {
    sampledMs: Math.round(total / 1000),
    busyMs: Math.round(busy / 1000),
    /** Shares of the busy (not idle) time. */
    shares: [...shares].filter(([name]) => name !== '(idle)').sort(([, a], [, b]) => b - a).map(([name, micros]) => ({ name, ms: Math.round(micros / 1000), busyPercent: pct(micros, busy) })),
    /** Busy time by the innermost svc source file on the stack (what it called included). */
    byInnermostSvcFile: [...byFile].filter(([file]) => file !== '(idle)').sort(([, a], [, b]) => b - a).slice(0, top).map(([file, micros]) => ({ file, ms: Math.round(micros / 1000), busyPercent: pct(micros, busy) })),
    topSelf: [...self].filter(([fn]) => !fn.startsWith('(idle)')).sort(([, a], [, b]) => b - a).slice(0, top).map(([fn, micros]) => ({ fn, ms: Math.round(micros / 1000), busyPercent: pct(micros, busy) })),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: profile-split.ts <file>.cpuprofile');
  console.log(JSON.stringify(splitProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile), null, 2));
}
