import type { Writable } from 'node:stream';
import { watchFrames, type JsonObject, type RenderOptions } from '../../encoding/index.js';
import type { FrameEncoder } from './frames.js';
import { SlabPool } from './slab-pool.js';
import { COALESCE_BYTES, type WritePacing } from './write-hold.js';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../api/index.js';

/**
 * Frames in any other representation (a view, pretty JSON, protobuf, CBOR): each event's object
 * is decoded from the version's JSON bytes and encoded per watcher.
 */
export function renderedFrameEncoder(options: RenderOptions, pacing: WritePacing): FrameEncoder {
  const frames = watchFrames(options);
  // The frames of one tick (of a busy watch: of the hold, write-hold.ts) leave as one write: one
  // HTTP chunk (and TLS record) for a burst of events instead of one each — the client handles
  // each chunk with a parser callback and a stream push, so a replay costs it per burst, not per
  // event. At most COALESCE_BYTES wait.
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let scheduled = false;
  const flush = (res: Writable): void => {
    scheduled = false;
    if (pending.length === 0) return;
    pacing.wrote();
    const parts = pending;
    const bytes = pendingBytes;
    pending = [];
    pendingBytes = 0;
    if (res.writableEnded || res.destroyed) return;
    // One frame is written as it is (its bytes are shared, cached per version); several are
    // joined in a reused buffer (slab-pool.ts says why).
    if (parts.length === 1) res.write(parts[0]!);
    else WRITE_SLABS.writeJoined(parts, bytes, (chunk, done) => res.write(chunk, done));
  };
  const write = (res: Writable, bytes: Uint8Array): boolean => {
    pending.push(bytes);
    pendingBytes += bytes.length;
    if (pendingBytes >= COALESCE_BYTES) flush(res);
    else if (!scheduled) {
      scheduled = true;
      pacing.schedule(flush, res);
    }
    // Backpressure as the socket reports it: a flush that could not be written says so here.
    return !res.writableNeedDrain;
  };
  return {
    write: (res, frame) => {
      if (frame.type === 'BOOKMARK') {
        // A bookmark is not held: it is rare, and a client may be waiting for it (the end of a
        // watch list's initial events) — it leaves now, with what was held before it.
        const more = write(res, frames.bookmark(frame.revision, frame.initialEventsEnd ? { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } : undefined));
        flush(res);
        return more && !res.writableNeedDrain;
      }
      return write(res, frames.event(frame.type, frame.object.object.json));
    },
    error: (res, status) => {
      flush(res);
      pacing.wrote();
      res.write(frames.error(status as unknown as JsonObject));
    },
    flush,
  };
}

/**
 * The buffers those writes are joined in, shared by every watch of the process: a flush holds
 * under COALESCE_BYTES plus one frame, so most fit in twice that.
 */
const WRITE_SLABS = new SlabPool(2 * COALESCE_BYTES, 16);
