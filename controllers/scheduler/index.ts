// Public surface of controllers/scheduler: the scheduler pipeline and the parts it is made of (docs/scheduler.md).
export { scheduler, DEFAULT_SCHEDULER_NAMES, SCHEDULER_NAME } from './scheduler.js';
export type { ScheduleResult, SchedulerOptions, SchedulerState } from './scheduler.js';
export { SchedulerCache } from './cache.js';
export { NodeInfo } from './node-info.js';
export { podInfo, podKey } from './pod-info.js';
export type { HostPort, PodInfo } from './pod-info.js';
export { SchedulingQueue } from './scheduling-queue.js';
export type { QueuedPod, SchedulingQueueOptions } from './scheduling-queue.js';
export { NodeFinder, feasibleNodesToFind } from './find-node.js';
export type { FindNodeOptions, NodeSource, Placement } from './find-node.js';
export { FitError } from './fit-error.js';
export type { FilterPlugin, ScorePlugin } from './plugin.js';
export { MAX_NODE_SCORE } from './plugin.js';
export { DEFAULT_FILTERS } from './filters/index.js';
export { DEFAULT_SCORES } from './scores/index.js';
export { milliValue } from './quantity.js';
export { podRequests } from './resources.js';
