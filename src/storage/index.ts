export type { GetOptions, KeyValue, ListOptions, ListResult, Store, StoreEvent } from './store.js';
export { StorageError, isStorageError } from './errors.js';
export type { StorageErrorCode, StorageErrorDetails } from './errors.js';
export { bytesCodec, jsonCodec } from './codec.js';
export type { ValueCodec } from './codec.js';
export { DEFAULT_PREFIX, MAX_KEY_LENGTH } from './keys.js';
export { MemoryData, MemoryStore } from './memory.js';
export type { MemoryStoreOptions } from './memory.js';
