import type { KubeObject } from '../api/index.js';
import type { CacheReader, InformerEvent } from '../client/index.js';
import type { ControllerResult, SyncedSource } from '../../controllers/index.js';

/**
 * A controller's recorded run, as NDJSON: one line per thing that happened, in the order it
 * happened, each with `at` (ms since the recording began, on the controller's clock):
 *
 * ```
 * {"at":0.4,"source":"for","type":"SYNCED","objects":[...]}          a source's cache filled (its content then)
 * {"at":0.5,"source":"for","type":"ADDED","object":{...}}             a watch event the controller got
 * {"at":3.1,"write":{"method":"POST","path":"/api/v1/...","code":201,"body":{...}}}   a write it made, and the answer
 * {"at":3.2,"result":{"type":"awaitChange","key":"ns/a","attempts":1}}               a reconcile's outcome
 * ```
 *
 * A corpus may open with `{"at":0,"header":{...}}`: what it is and how it was made (a corpus
 * recorded on hollow nodes says there that its containers were simulated). Replays skip it.
 *
 * Event types are the watch's (`ADDED`, `MODIFIED`, `DELETED`) and `RESYNC` (an informer's
 * periodic re-announcement); a `DELETED` seen only by a relist carries `"finalStateUnknown":true`.
 */
export type RecordingLine = EventLine | WriteLine | ResultLine | HeaderLine;

export interface EventLine {
  readonly at: number;
  /** The name the source was recorded under (`recorder.source(name, informer)`). */
  readonly source: string;
  readonly type: 'SYNCED' | 'ADDED' | 'MODIFIED' | 'DELETED' | 'RESYNC';
  readonly object?: KubeObject;
  /** `SYNCED`: the cache's content when it synced. */
  readonly objects?: readonly KubeObject[];
  readonly finalStateUnknown?: boolean;
}

export interface RecordedWrite {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  /** The request's body: parsed when JSON, else base64 in `requestBase64`. */
  readonly request?: unknown;
  readonly requestBase64?: string;
  readonly requestType?: string;
  readonly code: number;
  readonly contentType?: string;
  /** A JSON answer, parsed. */
  readonly body?: unknown;
  /** Any other answer (protobuf, YAML), base64. */
  readonly bodyBase64?: string;
}

export interface WriteLine {
  readonly at: number;
  readonly write: RecordedWrite;
}

/** A reconcile's outcome, as far as it can be compared across runs (an error by its message). */
export interface RecordedResult {
  readonly type: ControllerResult<unknown>['type'];
  readonly key: string;
  readonly attempts: number;
  /** `requeueAfter` and `retry`: when the key runs again, ms after this run. */
  readonly after?: number;
  /** `retry` and `terminal`: the error's message. */
  readonly error?: string;
}

/** A corpus's description of itself (its first line): free-form facts, read by people and tools, not by replays. */
export interface HeaderLine {
  readonly at: number;
  readonly header: Readonly<Record<string, unknown>>;
}

export interface ResultLine {
  readonly at: number;
  readonly result: RecordedResult;
}

/**
 * What a controller reads from a source: an informer is one as it is (its events, whether it has
 * synced, its cache); so is a replayed source.
 */
export interface CachedSource<T extends KubeObject> extends SyncedSource<InformerEvent<T>> {
  readonly store: CacheReader<T>;
}

export const isEventLine = (line: RecordingLine): line is EventLine => 'source' in line;
export const isWriteLine = (line: RecordingLine): line is WriteLine => 'write' in line;
export const isResultLine = (line: RecordingLine): line is ResultLine => 'result' in line;
export const isHeaderLine = (line: RecordingLine): line is HeaderLine => 'header' in line;

/** The comparable part of a controller's result. */
export function recordedResult(result: ControllerResult<unknown>): RecordedResult {
  return {
    type: result.type,
    key: result.key,
    attempts: result.attempts,
    ...('after' in result ? { after: result.after } : {}),
    ...('error' in result ? { error: result.error instanceof Error ? result.error.message : String(result.error) } : {}),
  };
}

/** The comparable part of a write: what was asked and the answer's code. */
export const writeSummary = (write: Pick<RecordedWrite, 'method' | 'path' | 'code'>): string => `${write.method} ${write.path} → ${write.code}`;

export function toNdjson(lines: readonly RecordingLine[]): string {
  return lines.map((line) => `${JSON.stringify(line)}\n`).join('');
}

/** Parses a recording; a line that is not one names its number. */
export function parseRecording(text: string): RecordingLine[] {
  const lines: RecordingLine[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch (error) {
      throw new SyntaxError(`recording line ${i + 1}: ${(error as Error).message}`);
    }
    if (typeof line !== 'object' || line === null || typeof (line as { at?: unknown }).at !== 'number') {
      throw new SyntaxError(`recording line ${i + 1}: not an object with a numeric "at"`);
    }
    const l = line as RecordingLine;
    if (!isEventLine(l) && !isWriteLine(l) && !isResultLine(l) && !isHeaderLine(l)) throw new SyntaxError(`recording line ${i + 1}: neither an event, a write, a result nor a header`);
    lines.push(l);
  });
  return lines;
}
