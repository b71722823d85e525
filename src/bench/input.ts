import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { KubeObject } from '../api/index.js';
import type { EventLine } from '../testing/index.js';

/** One item of a benchmark's input and when it arrives, in ms from the start of the run. */
export interface Timed<T> {
  readonly at: number;
  readonly value: T;
}

/** A benchmark's input: its items in arrival order, and where they came from. */
export interface BenchInput<T> {
  readonly name: string;
  readonly items: readonly Timed<T>[];
}

/** A watch event as an informer hands it on (the shape recorded corpora hold). */
export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubeObject;
}

export interface SyntheticOptions {
  /** How many distinct objects (keys) the events are about. */
  readonly keys: number;
  /** How many events. */
  readonly events: number;
  /** Shares of each type among the events after each key's first ADDED (default 90 % MODIFIED, 10 % DELETED then re-ADDED). */
  readonly deleteShare?: number;
  /** Events per second (default 1,000): event i arrives at i × 1000 / rate ms. */
  readonly ratePerSecond?: number;
  /** Namespaces the keys are spread over (default 10). */
  readonly namespaces?: number;
  /** Seed of the deterministic mix (default 1): the same options give the same input. */
  readonly seed?: number;
}

/**
 * Watch events about `keys` objects at a steady rate: each key's first event is ADDED, then a
 * deterministic mix of MODIFIED (generation and resourceVersion move) and DELETED (the key comes
 * back ADDED later). Objects are small Pods-like metadata: the input costs little to make, so a
 * benchmark measures the operator, not the input.
 */
export function syntheticEvents(options: SyntheticOptions): BenchInput<WatchEvent> {
  const { keys, events } = options;
  const rate = options.ratePerSecond ?? 1_000;
  const namespaces = options.namespaces ?? 10;
  const deleteShare = options.deleteShare ?? 0.1;
  let state = options.seed ?? 1;
  // xorshift32: deterministic and cheap.
  const random = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  const alive = new Uint8Array(keys);
  const generation = new Uint32Array(keys);
  const items: Timed<WatchEvent>[] = [];
  for (let i = 0; i < events; i++) {
    const key = i < keys ? i : Math.floor(random() * keys);
    let type: WatchEvent['type'];
    if (!alive[key]) type = 'ADDED';
    else type = random() < deleteShare ? 'DELETED' : 'MODIFIED';
    alive[key] = type === 'DELETED' ? 0 : 1;
    if (type !== 'DELETED') generation[key]!++;
    const object: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `p-${key}`,
        namespace: `ns-${key % namespaces}`,
        uid: `uid-${key}`,
        resourceVersion: String(i + 1),
        generation: generation[key]!,
        labels: { app: `app-${key % 7}` },
      },
    };
    items.push({ at: (i * 1000) / rate, value: { type, object } });
  }
  return { name: `synthetic ${keys} keys, ${events} events at ${rate}/s`, items };
}

export interface RecordedOptions {
  /** Only the events of this recorded source (`recorder.source(name, …)`); default all. */
  readonly source?: string | undefined;
  /** A name for the input in reports (default "recorded"). */
  readonly name?: string | undefined;
}

/**
 * The watch events of a recorded corpus (the NDJSON `svc record` and the test kit's `Recorder`
 * write), at their recorded times. A source's SYNCED line becomes ADDED for each object it held.
 */
export function recordedEvents(ndjson: string, options: RecordedOptions = {}): BenchInput<WatchEvent> {
  const items: Timed<WatchEvent>[] = [];
  // The recording's event lines only (the test kit's parseRecording reads writes and results too,
  // but would load the whole test kit into every benchmark's process for it).
  const lines = ndjson.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() === '') continue;
    let event: EventLine;
    try {
      event = JSON.parse(lines[i]!) as EventLine;
    } catch (error) {
      throw new SyntaxError(`recording line ${i + 1}: ${(error as Error).message}`);
    }
    if (typeof event !== 'object' || event === null || !('source' in event)) continue;
    if (options.source !== undefined && event.source !== options.source) continue;
    if (event.type === 'SYNCED') for (const object of event.objects ?? []) items.push({ at: event.at, value: { type: 'ADDED', object } });
    else if (event.type !== 'RESYNC' && event.object) items.push({ at: event.at, value: { type: event.type, object: event.object } });
  }
  return { name: options.name ?? 'recorded', items };
}

/**
 * A corpus file's NDJSON: `svc record`'s `.ndjson`, or the same gzipped (`.ndjson.gz`) or
 * brotli-compressed (`.ndjson.br`, the larger corpora svc ships: a recording's lines repeat each
 * other far beyond gzip's 32 KB window, and brotli's 16 MB window takes that in), for
 * `recordedEvents` and `controllerBenchmark`.
 */
export function readCorpus(path: string): string {
  const bytes = readFileSync(path);
  const text = path.endsWith('.gz') ? gunzipSync(bytes) : path.endsWith('.br') ? brotliDecompressSync(bytes) : bytes;
  return text.toString('utf8');
}
