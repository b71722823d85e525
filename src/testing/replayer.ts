import type { Observable } from 'rxjs';
import { internal, type KubeObject } from '../api/index.js';
import type { Client } from '../client/index.js';
import type { ControllerResult } from '../../controllers/index.js';
import {
  isEventLine,
  isResultLine,
  isWriteLine,
  parseRecording,
  recordedResult,
  writeSummary,
  type CachedSource,
  type RecordedResult,
  type RecordedWrite,
  type RecordingLine,
} from './recording.js';
import { recordedWrite } from './recorder.js';
import { ReplaySource, type ReplaySourceOptions } from './replay-source.js';
import type { TestCluster } from './test-cluster.js';
import { VirtualTime } from './virtual-time.js';

let replayers = 0;

/** A write the replayed controller made: what it asked and the code it was answered with. */
export interface ReplayedWrite {
  readonly method: string;
  readonly path: string;
  readonly code: number;
}

export interface ReplayReport {
  /** The replayed controller's results, in order. */
  readonly results: readonly RecordedResult[];
  /** Its writes, in order. */
  readonly writes: readonly ReplayedWrite[];
  /** The recording's. */
  readonly recorded: { readonly results: readonly RecordedResult[]; readonly writes: readonly ReplayedWrite[] };
  /** Where the replay first differed from the recording (a write, a result, one too many); undefined when it did not. */
  readonly divergence: string | undefined;
}

export interface ReplayerOptions {
  /** The clock the replay moves to each line's `at`; give the same to `controller({ scheduler })`. Default: a new `VirtualTime`. */
  readonly time?: VirtualTime;
  /** Longest wait for the controller to make a recorded write or result before the replay calls it missing. Default 10 s. */
  readonly guardMs?: number;
  /**
   * Compare each write's request body with the recorded one (default true). Turn it off for a
   * controller that writes the wall-clock time (a condition's lastTransitionTime): method and path
   * are still compared.
   */
  readonly compareRequests?: boolean;
}

const turn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

/**
 * Plays a recording (`Recorder`) back to a controller, deterministically: the recorded events are
 * announced by replayed sources in their recorded order, the clock (virtual) moves to each line's
 * time, and each write the controller makes is answered by the test server with the recorded
 * answer (the store is not touched). The replay waits at each recorded write and result until
 * the controller makes it, so events reach it at the same points of its work as when recorded;
 * `run` reports the results and writes it got, and the first divergence.
 *
 * @example
 * const replay = new Replayer(cluster, readFileSync('widgets.ndjson', 'utf8'));
 * const report = await replay.run(widgetController(replay.source('for'), replay.client, replay.time));
 * expect(report.divergence).toBeUndefined();
 */
export class Replayer {
  readonly #lines: readonly RecordingLine[];
  readonly #sources = new Map<string, ReplaySource<KubeObject>>();
  readonly #cluster: TestCluster;
  readonly #guardMs: number;
  readonly #compareRequests: boolean;
  readonly time: VirtualTime;
  /** The `User-Agent` the server answers from the recording. */
  readonly userAgent: string;
  /** The client to give the controller: its writes are answered from the recording. */
  readonly client: Client;

  constructor(cluster: TestCluster, recording: string | readonly RecordingLine[], options: ReplayerOptions = {}) {
    this.#lines = typeof recording === 'string' ? parseRecording(recording) : recording;
    this.#cluster = cluster;
    this.#guardMs = options.guardMs ?? 10_000;
    this.#compareRequests = options.compareRequests ?? true;
    this.time = options.time ?? new VirtualTime();
    this.userAgent = `svc-testing/replayer-${++replayers}`;
    this.client = cluster.newClient({ userAgent: this.userAgent });
  }

  /** The recorded source `name`, played back (its cache filled as the recording's was). */
  source<T extends KubeObject>(name: string, options: ReplaySourceOptions<T> = {}): CachedSource<T> {
    return this.#replaySource(name, options) as unknown as CachedSource<T>;
  }

  #replaySource<T extends KubeObject>(name: string, options: ReplaySourceOptions<T> = {}): ReplaySource<KubeObject> {
    let source = this.#sources.get(name);
    if (source === undefined) {
      source = new ReplaySource<T>(options) as unknown as ReplaySource<KubeObject>;
      this.#sources.set(name, source);
    }
    return source;
  }

  /** Subscribes to the controller's results, plays the recording through, and reports. */
  async run<R>(results$: Observable<ControllerResult<R>>): Promise<ReplayReport> {
    const expectedWrites = this.#lines.filter(isWriteLine).map((line) => line.write);
    const recorded = { results: this.#lines.filter(isResultLine).map((line) => line.result), writes: expectedWrites.map(replayed) };
    const writes: ReplayedWrite[] = [];
    const results: RecordedResult[] = [];
    let divergence: string | undefined;
    const diverge = (why: string) => void (divergence ??= why);

    const stopAnswering = this.#cluster.writeTap.answer(this.userAgent, (write) => {
      const { method, path } = write;
      const expected = expectedWrites[writes.length];
      const made = `${method} ${path}`;
      const bodyDiffers = expected !== undefined && this.#compareRequests && requestOf(expected) !== requestOf(recordedWrite({ ...write, code: 0 }));
      if (expected === undefined || expected.method !== method || expected.path !== path || bodyDiffers) {
        const n = writes.length + 1;
        diverge(
          bodyDiffers
            ? `write #${n} (${made}): the request body differs: the recording has ${clip(requestOf(expected))}, the controller sent ${clip(requestOf(recordedWrite({ ...write, code: 0 })))}`
            : `write #${n}: ${expected ? `the recording has ${writeSummary(expected)}` : 'the recording has no more writes'}, the controller made ${made}`,
        );
        writes.push({ method, path, code: 500 });
        return { code: 500, contentType: 'application/json', body: Buffer.from(JSON.stringify(internal(new Error(`replay diverged at ${made}`)).toStatus())) };
      }
      writes.push(replayed(expected));
      return answerOf(expected);
    });
    const subscription = results$.subscribe({
      next: (result) => void results.push(recordedResult(result)),
      error: (error: unknown) => diverge(`the controller failed: ${error instanceof Error ? error.message : String(error)}`),
    });

    // The clock may have to move while the replay waits: a requeue or retry timer started a
    // little later on the virtual clock than on the recording's (it starts at the time of the
    // line the replay stands at). It is moved to the next timer, never past the next event.
    let horizon = Infinity;
    const until = async (done: () => boolean, what: string): Promise<boolean> => {
      const guard = Date.now() + this.#guardMs;
      for (let idle = 0; !done() && divergence === undefined; idle++) {
        if (Date.now() > guard) {
          diverge(`the controller never made ${what}`);
          return false;
        }
        if (idle >= 3 && this.time.nextAt() <= horizon) await this.time.advanceTo(this.time.nextAt());
        else await turn();
      }
      return divergence === undefined;
    };

    try {
      let writeCount = 0;
      let resultCount = 0;
      const lines = this.#lines;
      for (let i = 0; i < lines.length && divergence === undefined; i++) {
        const line = lines[i]!;
        horizon = nextEventAt(lines, i + 1);
        if (line.at > this.time.now()) await this.time.advanceTo(line.at);
        if (isEventLine(line)) {
          this.#replaySource(line.source).apply(line);
        } else if (isWriteLine(line)) {
          const n = ++writeCount;
          await until(() => writes.length >= n, `write #${n} (${writeSummary(line.write)})`);
        } else if (isResultLine(line)) {
          const n = ++resultCount;
          if (!(await until(() => results.length >= n, `result #${n} (${line.result.type} ${line.result.key})`))) break;
          const got = results[n - 1]!;
          if (!sameResult(got, line.result)) diverge(`result #${n}: the recording has ${describe(line.result)}, the controller gave ${describe(got)}`);
        }
      }
      // Anything more the controller does before it falls quiet is a divergence too.
      for (let quiet = 0; quiet < 5 && divergence === undefined; ) {
        const before = writes.length + results.length;
        await turn();
        quiet = writes.length + results.length === before ? quiet + 1 : 0;
      }
      if (results.length > recorded.results.length) diverge(`result #${recorded.results.length + 1} (${describe(results[recorded.results.length]!)}) is not in the recording`);
      if (writes.length > expectedWrites.length) diverge(`write #${expectedWrites.length + 1} is not in the recording`);
    } finally {
      subscription.unsubscribe();
      stopAnswering();
    }
    return { results, writes, recorded, divergence };
  }
}

/** The time of the first event line from `from` on (Infinity: none). */
function nextEventAt(lines: readonly RecordingLine[], from: number): number {
  for (let i = from; i < lines.length; i++) if (isEventLine(lines[i]!)) return lines[i]!.at;
  return Infinity;
}

/** A write's request body, comparable as a string. */
const requestOf = (write: RecordedWrite): string => write.requestBase64 ?? JSON.stringify(write.request) ?? '';
const clip = (text: string): string => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

const replayed = (write: RecordedWrite): ReplayedWrite => ({ method: write.method, path: write.path, code: write.code });

function answerOf(write: RecordedWrite): { code: number; contentType?: string; body?: Buffer } {
  const body =
    write.bodyBase64 !== undefined ? Buffer.from(write.bodyBase64, 'base64') : write.body !== undefined ? Buffer.from(JSON.stringify(write.body)) : undefined;
  return { code: write.code, ...(write.contentType ? { contentType: write.contentType } : {}), ...(body ? { body } : {}) };
}

const sameResult = (a: RecordedResult, b: RecordedResult): boolean =>
  a.type === b.type && a.key === b.key && a.attempts === b.attempts && a.after === b.after && a.error === b.error;

const describe = (r: RecordedResult): string =>
  `${r.type} ${r.key} (attempt ${r.attempts}${r.after !== undefined ? `, after ${r.after} ms` : ''}${r.error !== undefined ? `: ${r.error}` : ''})`;
