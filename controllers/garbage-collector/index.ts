// Public surface of controllers/garbage-collector: the garbage collector (docs/garbage-collector.md).
export { collectable, garbageCollector } from './garbage-collector.js';
export type { GarbageCollectorOptions } from './garbage-collector.js';
