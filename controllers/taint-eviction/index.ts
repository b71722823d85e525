// Public surface of controllers/taint-eviction: pods evicted from nodes by NoExecute taints (docs/controller-manager.md).
export { EVICTION_MESSAGE, EVICTION_REASON, taintEvictionController } from './taint-eviction-controller.js';
export type { TaintEvictionOptions } from './taint-eviction-controller.js';
export { evictionTime } from './eviction-time.js';
