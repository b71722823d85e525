import type { Writable } from 'node:stream';
import type { Status } from '../../api/index.js';
import type { ServedObject } from '../served-object.js';
import type { CacheEvent } from '../../watch-cache/index.js';


/** A bookmark: the client holds every event up to `revision`. */
export interface Bookmark {
  readonly type: 'BOOKMARK';
  readonly revision: number;
  /** The bookmark that ends a watch list's initial events. */
  readonly initialEventsEnd?: boolean;
}

/** What a watch writes: an event, or a bookmark at a revision. */
export type Frame = CacheEvent<ServedObject> | Bookmark;

/** Writes one watch's frames, and the ERROR event that ends a failed one. */
export interface FrameEncoder {
  write(res: Writable, frame: Frame): boolean;
  error(res: Writable, status: Status): void;
  /** Writes what the encoder holds back, before the response ends. */
  flush?(res: Writable): void;
}
