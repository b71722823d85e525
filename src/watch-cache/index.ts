export { WatchCache } from './watch-cache.js';
export type { WatchCacheOptions, WatchCacheStats } from './watch-cache.js';
export type { CachedObject } from './cached-object.js';
export type { CacheEvent, CacheEventType, CacheFilter } from './events.js';
export type { CacheList, CacheListOptions } from './list-tree.js';
export type { CacheWatchOptions } from './watch.js';
export { WatchCacheNotReadyError, WatchExpiredError } from './watch-cache-errors.js';
export type { WatchCacheErrorCode } from './watch-cache-errors.js';
