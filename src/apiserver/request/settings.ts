import type { ResourceType } from '../../api/index.js';

/** How the server runs watches: set once at start, carried by every request's context. */
export interface WatchSettings {
  /**
   * Live events one watch may have waiting for its client before it is ended (the client
   * resumes). Its replay (initial state, or the events since its start) is not counted.
   */
  readonly bufferEvents: number;
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

export const DEFAULT_WATCH_SETTINGS = { bufferEvents: 1_000, bookmarkIntervalMs: 15_000, minRequestTimeoutSeconds: 1_800 } as const;
