import { open, stat } from 'node:fs/promises';
import { badRequest, booleanParam, StatusError } from '../../api/index.js';
import type { CriClient } from '../cri/index.js';
import type { Container } from '../cri/types.js';
import { EntryJoiner, formatEntry, parseLogRecord, parseSinceTime, type LogEntry } from './cri-log-format.js';
import { fileLines, GrowingFile, rotatedFiles } from './log-files.js';
import { CONTAINER_NAME_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from '../cri/index.js';

/** The query of `/containerLogs/{namespace}/{pod}/{container}` (and of `pods/log`). */
export interface LogOptions {
  readonly follow: boolean;
  readonly previous: boolean;
  readonly timestamps: boolean;
  readonly tailLines?: number | undefined;
  readonly limitBytes?: number | undefined;
  /** Entries older than this (ns since the epoch) are left out: sinceSeconds or sinceTime. */
  readonly sinceNanos?: bigint | undefined;
}

const bool = (query: Readonly<Record<string, string | undefined>>, name: string): boolean => booleanParam(name, query[name], false) === true;

function int(query: Readonly<Record<string, string | undefined>>, name: string, min: number): number | undefined {
  const text = query[name];
  if (text === undefined || text === '') return undefined;
  if (!/^-?\d+$/.test(text)) throw badRequest(`${name}: ${JSON.stringify(text)} is not an integer`);
  const n = Number(text);
  if (n < min) throw badRequest(`${name}: must be ${min} or more`);
  return n;
}

/** Parses and checks a logs query as the API server's PodLogOptions validation does; 400 when wrong. */
export function parseLogOptions(query: Readonly<Record<string, string | undefined>>, now: () => number = Date.now): LogOptions {
  const sinceSeconds = int(query, 'sinceSeconds', 1);
  const sinceTime = query['sinceTime'] ? parseSinceTime(query['sinceTime']) : undefined;
  if (sinceSeconds !== undefined && sinceTime !== undefined) throw badRequest('at most one of sinceTime and sinceSeconds may be given');
  return {
    follow: bool(query, 'follow'),
    previous: bool(query, 'previous'),
    timestamps: bool(query, 'timestamps'),
    tailLines: int(query, 'tailLines', 0),
    limitBytes: int(query, 'limitBytes', 1),
    sinceNanos: sinceSeconds !== undefined ? BigInt(now() - sinceSeconds * 1000) * 1_000_000n : sinceTime,
  };
}

/** A container of a pod as the runtime labels find it (contracts: svc.io/pod.* and svc.io/container.name). */
export interface LogTarget {
  readonly containerId: string;
  readonly logPath: string;
}

const attemptOf = (c: Container) => c.metadata?.attempt ?? 0;

/**
 * The container whose log a request reads: the newest instance of `container` in the newest pod
 * of that name (a pod recreated under the same name has a new UID), or with `previous`, the one
 * of the highest attempt below it. 404 / 400 as the kubelet answers when there is none.
 */
export async function findLogTarget(cri: CriClient, namespace: string, pod: string, container: string, previous: boolean): Promise<LogTarget> {
  const { containers } = await cri.listContainers({
    filter: { labelSelector: { [POD_NAMESPACE_LABEL]: namespace, [POD_NAME_LABEL]: pod, [CONTAINER_NAME_LABEL]: container } },
  });
  const newest = [...containers].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))[0];
  if (!newest) {
    throw new StatusError({ reason: 'NotFound', message: `container ${JSON.stringify(container)} in pod ${JSON.stringify(pod)} (namespace ${JSON.stringify(namespace)}) is not available on this node` });
  }
  const uid = newest.labels[POD_UID_LABEL];
  const instances = containers.filter((c) => c.labels[POD_UID_LABEL] === uid).sort((a, b) => attemptOf(b) - attemptOf(a));
  const current = instances[0]!;
  const chosen = previous ? instances.find((c) => attemptOf(c) < attemptOf(current)) : current;
  if (!chosen) throw badRequest(`previous terminated container ${JSON.stringify(container)} in pod ${JSON.stringify(pod)} not found`);
  const { status } = await cri.containerStatus({ containerId: chosen.id });
  if (!status?.logPath) throw badRequest(`container ${JSON.stringify(container)} in pod ${JSON.stringify(pod)} has no log file`);
  return { containerId: chosen.id, logPath: status.logPath };
}

export interface LogStreamOptions extends LogOptions {
  readonly cri: CriClient;
  readonly target: LogTarget;
  /** Ends a follow (the client went away). */
  readonly signal?: AbortSignal | undefined;
  /** How often a follow looks for new lines (default 100 ms) and asks whether the container exited (default 1 s). */
  readonly pollMs?: number | undefined;
  readonly exitCheckMs?: number | undefined;
}

/**
 * The log as the endpoint writes it, chunk by chunk: the rotated files then the current one
 * (with `tailLines`, only the last lines across them), filtered by `since`, cut at `limitBytes`;
 * with `follow`, then what the container writes next — across rotations — until it exits.
 */
export async function* containerLog(options: LogStreamOptions): AsyncGenerator<Buffer> {
  const { target, timestamps } = options;
  let budget = options.limitBytes ?? Infinity;
  const since = options.sinceNanos;
  const keep = (entry: LogEntry) => since === undefined || entry.nanos >= since;
  const emit = (entry: LogEntry): Buffer | undefined => {
    if (budget <= 0 || !keep(entry)) return undefined;
    let bytes = formatEntry(entry, timestamps);
    if (bytes.length > budget) bytes = bytes.subarray(0, budget);
    budget -= bytes.length;
    return bytes;
  };

  const joiner = new EntryJoiner();
  // The current file is read through a handle that stays open, so a follow goes on exactly where
  // the first read stopped, even if the file is rotated in between.
  let current = await openGrowing(target.logPath);
  try {
    // A rotation between opening the current file and listing would show it twice: once open, once renamed.
    const rotated = await withoutInode(await rotatedFiles(target.logPath), current?.ino);
    const tail = options.tailLines;
    if (tail === undefined) {
      for (const file of rotated) {
        for await (const line of fileLines(file)) {
          const out = entryOf(joiner, line);
          const bytes = out && emit(out);
          if (bytes) yield bytes;
          if (budget <= 0) return;
        }
      }
      for (let lines = await current?.readBatch(); lines; lines = await current!.readBatch()) {
        for (const entry of entriesOf(joiner, lines)) {
          const bytes = emit(entry);
          if (bytes) yield bytes;
          if (budget <= 0) return;
        }
      }
    } else {
      // Newest file first, keeping only as many entries as are still wanted: memory is bounded by tailLines.
      let lines: LogEntry[] = [];
      for (let batch = await current?.readBatch(); batch; batch = await current!.readBatch()) {
        lines.push(...entriesOf(joiner, batch).filter(keep));
        if (lines.length > tail) lines = lines.slice(lines.length - tail);
      }
      for (let i = rotated.length - 1; i >= 0 && lines.length < tail; i--) {
        const want = tail - lines.length;
        const ring: LogEntry[] = [];
        const fileJoiner = new EntryJoiner();
        for await (const line of fileLines(rotated[i]!)) {
          const entry = entryOf(fileJoiner, line);
          if (!entry || !keep(entry)) continue;
          ring.push(entry);
          // Trimmed in steps, not per line: a shift per line would make a large tail quadratic.
          if (ring.length >= 2 * want) ring.splice(0, ring.length - want);
        }
        lines = [...ring.slice(Math.max(0, ring.length - want)), ...lines];
      }
      for (const entry of lines) {
        const bytes = emit(entry);
        if (bytes) yield bytes;
        if (budget <= 0) return;
      }
    }
    if (!options.follow) return;

    const pollMs = options.pollMs ?? 100;
    const exitCheckMs = options.exitCheckMs ?? 1000;
    let lastExitCheck = 0;
    let exited = false;
    while (!options.signal?.aborted) {
      const lines = await current?.readBatch();
      if (lines) {
        for (const entry of entriesOf(joiner, lines)) {
          const bytes = emit(entry);
          if (bytes) yield bytes;
          if (budget <= 0) return;
        }
        continue;
      }
      // Drained: a rotation moved the file away (a new inode at the path), or the container ended.
      const now = await inodeOf(target.logPath);
      if (now !== undefined && now !== current?.ino) {
        await current?.close();
        current = await openGrowing(target.logPath);
        continue;
      }
      if (exited) return;
      if (Date.now() - lastExitCheck >= exitCheckMs) {
        lastExitCheck = Date.now();
        // One more drain after seeing the exit: lines written just before it are not lost.
        exited = !(await isRunning(options.cri, target.containerId));
        if (exited) continue;
      }
      await sleep(pollMs, options.signal);
    }
  } finally {
    await current?.close();
  }
}

function entryOf(joiner: EntryJoiner, line: Buffer): LogEntry | undefined {
  const record = parseLogRecord(line);
  return record && joiner.push(record);
}

function entriesOf(joiner: EntryJoiner, lines: readonly Buffer[]): LogEntry[] {
  const out: LogEntry[] = [];
  for (const line of lines) {
    const entry = entryOf(joiner, line);
    if (entry) out.push(entry);
  }
  return out;
}

async function openGrowing(path: string): Promise<GrowingFile | undefined> {
  try {
    const handle = await open(path, 'r');
    return new GrowingFile(handle, (await handle.stat()).ino);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function withoutInode(files: readonly string[], ino: number | undefined): Promise<string[]> {
  if (ino === undefined) return [...files];
  const kept: string[] = [];
  for (const file of files) if ((await inodeOf(file)) !== ino) kept.push(file);
  return kept;
}

async function inodeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).ino;
  } catch {
    return undefined;
  }
}

async function isRunning(cri: CriClient, containerId: string): Promise<boolean> {
  try {
    const { status } = await cri.containerStatus({ containerId });
    return status?.state === 'CONTAINER_RUNNING' || status?.state === 'CONTAINER_CREATED';
  } catch {
    return false; // removed: it has exited for good
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
