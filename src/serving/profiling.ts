import { Session } from 'node:inspector/promises';
import { StatusError } from '../api/index.js';

/**
 * The `/debug/pprof/` equivalent for Node: a CPU profile over `seconds` (the `.cpuprofile` JSON
 * Chrome DevTools and speedscope open) and a V8 heap snapshot (`.heapsnapshot`), both taken
 * through the inspector protocol in this process. One profile at a time: profiling is not free.
 */

export const MAX_PROFILE_SECONDS = 300;
let busy = false;

async function exclusive<T>(work: () => Promise<T>): Promise<T> {
  if (busy) throw new StatusError({ reason: 'Conflict', message: 'a profile is already being taken; try again when it is done' });
  busy = true;
  try {
    return await work();
  } finally {
    busy = false;
  }
}

/** `?seconds=N` as pprof reads it: default 30, an integer from 1 to 300. */
export function profileSeconds(query: URLSearchParams): number {
  const text = query.get('seconds');
  if (text === null) return 30;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= MAX_PROFILE_SECONDS)) throw new StatusError({ reason: 'BadRequest', message: `seconds must be an integer from 1 to ${MAX_PROFILE_SECONDS}, got ${JSON.stringify(text)}` });
  return n;
}

/** A CPU profile of this process over `seconds`. */
export function cpuProfile(seconds: number, signal?: AbortSignal): Promise<string> {
  return exclusive(async () => {
    const session = new Session();
    session.connect();
    try {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, seconds * 1000);
        signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      const { profile } = await session.post('Profiler.stop');
      return JSON.stringify(profile);
    } finally {
      session.disconnect();
    }
  });
}

/** A heap snapshot, written chunk by chunk to `write` as V8 produces it (snapshots are large). */
export function heapSnapshot(write: (chunk: string) => void): Promise<void> {
  return exclusive(async () => {
    const session = new Session();
    session.connect();
    try {
      session.on('HeapProfiler.addHeapSnapshotChunk', (message) => write(message.params.chunk));
      await session.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    } finally {
      session.disconnect();
    }
  });
}
