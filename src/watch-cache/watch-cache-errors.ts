/**
 * The watch cache's own failures, each with a stable `code` the API server branches on. Argument
 * errors and a stopped cache reuse StorageError (`InvalidArgument`, `Closed`), which the API
 * server already maps.
 */
export type WatchCacheErrorCode = 'Expired' | 'NotReady';

/**
 * A watch asked for events neither the cache's history nor the store still holds. The API server
 * answers with one ERROR event: 410 Expired, `too old resource version: ${requested} (${oldest})`.
 */
export class WatchExpiredError extends Error {
  override readonly name = 'WatchExpiredError';
  readonly code = 'Expired' satisfies WatchCacheErrorCode;

  constructor(
    /** The revision the watch wanted to start after. */
    readonly requested: number,
    /** The oldest revision a watch can start after now (the number kube prints in parentheses). */
    readonly oldest: number,
  ) {
    super(`too old resource version: ${requested} (${oldest})`);
  }
}

/** A read arrived before the cache finished its first list (the API server answers 429). */
export class WatchCacheNotReadyError extends Error {
  override readonly name = 'WatchCacheNotReadyError';
  readonly code = 'NotReady' satisfies WatchCacheErrorCode;

  constructor(readonly prefix: string) {
    super(`the watch cache of ${prefix} is not ready yet`);
  }
}
