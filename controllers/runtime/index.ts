// Public surface of controllers/runtime/: run a set of named control loops with one shared
// informer factory, one Lease, signals, a bounded drain and a secure port (docs/controllers.md).
export { runLeadership } from './leadership.js';
export type { ElectionSettings, Leadership, LeadershipOptions } from './leadership.js';
export { silentLog } from './log.js';
export type { ManagerLog } from './log.js';
export { ManagerMetrics } from './metrics.js';
export type { MetricsOptions } from './metrics.js';
export { LIVE_CONTROLLERS_PATH, runControllers } from './run-controllers.js';
export type { ControllerRuntime, ControllerRuntimeOptions, ElectionOptions, RuntimeServingOptions } from './run-controllers.js';
export { startTerm } from './term.js';
export type { Term, TermOptions } from './term.js';
export { LoopActivity } from './loop-activity.js';
export type { ControllersSnapshot, ControllersUpdate, QueueStats, ReconcileRecord } from '../../src/browser-safe/index.js';
