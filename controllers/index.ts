// Public surface of controllers/: the controller builder and the controller manager's loops.
export { controller } from './controller.js';
export type { ControllerOptions, ControllerResult, OwnedSource } from './controller.js';
export type { ControllerContext, ControlLoop } from './context.js';
export { namespaceController } from './namespace/index.js';
export type { NamespaceControllerOptions } from './namespace/index.js';
export { garbageCollector } from './garbage-collector/index.js';
export type { GarbageCollectorOptions } from './garbage-collector/index.js';
// svc-scheduler's pipeline (docs/scheduler.md).
export { leaderElectedScheduler, scheduler } from './scheduler/index.js';
export type { LeaderElectedSchedulerOptions, ScheduleResult, SchedulerOptions } from './scheduler/index.js';
