// Public surface of controllers/: the controller builder (the controller manager's loops arrive with its issue).
export { controller } from './controller.js';
export type { ControllerOptions, ControllerResult, OwnedSource } from './controller.js';
export type { ControllerContext, ControlLoop } from './context.js';
// svc-scheduler's pipeline (docs/scheduler.md).
export { leaderElectedScheduler, scheduler } from './scheduler/index.js';
export type { LeaderElectedSchedulerOptions, ScheduleResult, SchedulerOptions } from './scheduler/index.js';
