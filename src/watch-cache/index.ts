export { WatchCache } from './watch-cache.js';
export type { WatchCacheOptions, WatchCacheStats } from './watch-cache.js';
export type { CachedObject } from './cached-object.js';
export type { CacheEvent, CacheEventType, CacheFilter } from './events.js';
export type { CacheList, CacheListOptions } from './list-tree.js';
export type { CacheWatchOptions } from './watch.js';
export { WatchCacheNotReadyError, WatchExpiredError } from './errors.js';
export type { WatchCacheErrorCode } from './errors.js';
