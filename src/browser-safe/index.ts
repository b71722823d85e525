// Modules the dashboard page shares with the server. They import nothing (test/layers.test.ts
// checks), so esbuild's browser bundle and the page's DOM-only type check can hold them.
export { formatMilliQuantity, formatMilliShort, milliQuantity, milliValue, quantityBytes, quantityValue } from './quantity.js';
export type { ControllersSnapshot, ControllersUpdate, QueueStats, ReconcileOutcome, ReconcileRecord } from './live-controllers.js';
