// Public surface of controllers/podgc: the pod garbage collector (docs/controller-manager.md).
export { GC_PERIOD_MS, podGcController, QUARANTINE_MS } from './podgc.js';
export type { PodGcOptions } from './podgc.js';
