import { badRequest } from '../../api/index.js';

/**
 * The CRI container log format: one record per line,
 * `<RFC3339Nano time> <stdout|stderr> <F|P> <content>`. A line the container wrote longer than the
 * runtime's buffer is split into `P` (partial) records ended by an `F` (full) one.
 */
export interface LogRecord {
  /** The time as the runtime wrote it (RFC3339Nano). */
  readonly time: string;
  /** Nanoseconds since the epoch. */
  readonly nanos: bigint;
  readonly stream: 'stdout' | 'stderr';
  readonly partial: boolean;
  readonly content: Buffer;
}

/** A line of the container's output, its partial records joined; stamped with the first one's time. */
export type LogEntry = Omit<LogRecord, 'partial'>;

const SPACE = 0x20;

/** One record of a log file line (without its newline); undefined for a line that is not one. */
export function parseLogRecord(line: Buffer): LogRecord | undefined {
  const a = line.indexOf(SPACE);
  if (a < 0) return undefined;
  const b = line.indexOf(SPACE, a + 1);
  if (b < 0) return undefined;
  const time = line.toString('latin1', 0, a);
  const stream = line.toString('latin1', a + 1, b);
  if (stream !== 'stdout' && stream !== 'stderr') return undefined;
  // The tag field may be absent in very old runtimes' files; then the content follows the stream.
  let partial = false;
  let start = b + 1;
  const c = line.indexOf(SPACE, b + 1);
  const tag = c < 0 ? line.toString('latin1', b + 1) : line.toString('latin1', b + 1, c);
  if (tag === 'P' || tag === 'F') {
    partial = tag === 'P';
    start = c < 0 ? line.length : c + 1;
  }
  const nanos = rfc3339Nanos(time);
  if (nanos === undefined) return undefined;
  return { time, nanos, stream, partial, content: line.subarray(start) };
}

/** RFC 3339 with up to nine fractional digits to nanoseconds since the epoch; undefined if not one. */
export function rfc3339Nanos(text: string): bigint | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i.exec(text);
  if (!match) return undefined;
  const ms = Date.parse(`${match[1]}${match[3]!.toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  return BigInt(ms) * 1_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'));
}

/** `sinceTime` of a logs request: RFC 3339; 400 otherwise. */
export function parseSinceTime(text: string): bigint {
  const nanos = rfc3339Nanos(text);
  if (nanos === undefined) throw badRequest(`sinceTime: ${JSON.stringify(text)} is not an RFC 3339 time`);
  return nanos;
}

/** Joins partial records into entries; its state survives across files (a line split by a rotation). */
export class EntryJoiner {
  #pending: LogRecord[] = [];

  /** The entry this record completes, if it does. */
  push(record: LogRecord): LogEntry | undefined {
    if (record.partial) {
      this.#pending.push(record);
      return undefined;
    }
    if (this.#pending.length === 0) return { time: record.time, nanos: record.nanos, stream: record.stream, content: record.content };
    const first = this.#pending[0]!;
    const content = Buffer.concat([...this.#pending.map((r) => r.content), record.content]);
    this.#pending = [];
    return { time: first.time, nanos: first.nanos, stream: first.stream, content };
  }
}

/** An entry as the logs endpoint writes it: `[<time> ]<content>\n`. */
export function formatEntry(entry: LogEntry, timestamps: boolean): Buffer {
  const parts = timestamps ? [Buffer.from(`${entry.time} `, 'latin1'), entry.content, NEWLINE] : [entry.content, NEWLINE];
  return Buffer.concat(parts);
}

const NEWLINE = Buffer.from('\n');
