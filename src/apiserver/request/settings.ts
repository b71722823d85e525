import type { ResourceType } from '../../api/index.js';
import type { WriteHold } from '../watch/write-hold.js';

/** How the server runs watches: set once at start, carried by every request's context. */
export interface WatchSettings {
  /**
   * Live events one watch may have waiting for its client before it is ended (the client
   * resumes). Its replay (initial state, or the events since its start) is not counted.
   */
  readonly bufferEvents: number;
  /**
   * Bytes one watch's response may hold unsent before it counts as full and its events wait
   * (counted against bufferEvents). Default SOCKET_BUDGET_BYTES; 0: full at the stream's
   * high-water mark, a tick of push-back ends a watch allowed no waiting events (tests).
   */
  readonly socketBudgetBytes?: number | undefined;
  /**
   * Holds a busy watch's frames to leave together, at most one write per interval a watch
   * (`--watch-write-interval`; absent or 0: each tick's frames leave at the end of the tick).
   */
  readonly writeHold?: WriteHold | undefined;
  /** How often a watch that allows bookmarks gets one while it is idle or busy. */
  readonly bookmarkIntervalMs: number;
  /** Watches without `timeoutSeconds` end after a random time in [this, 2 × this] seconds. */
  readonly minRequestTimeoutSeconds: number;
  /** The WatchList feature gate: `sendInitialEvents` is refused when it is off. */
  readonly watchList: boolean;
  /** Open watches (responses, WebSockets), ended when the server shuts down. */
  readonly open: Set<{ end(): void }>;
  /** The counter a watch of `type` adds each event it sends to (`apiserver_watch_events_total`). */
  readonly events?: ((type: ResourceType) => { inc(): void }) | undefined;
}

export const DEFAULT_WATCH_SETTINGS = { bufferEvents: 1_000, bookmarkIntervalMs: 15_000, minRequestTimeoutSeconds: 1_800, writeIntervalMs: 10 } as const;

/**
 * A watch's response is full at this many bytes unsent, not at the stream's 16 KiB high-water
 * mark: the socket's drain comes a loop turn later, so a watch that waited for it after 16 KiB
 * sent a few JSON pods (a few dozen Table rows) a turn, and on a busy server, whose turns each
 * commit dozens of writes, fell behind a flood its client could read (docs/watch.md#slow-clients).
 */
export const SOCKET_BUDGET_BYTES = 256 * 1024;
