export { DEFAULT_FLOW_CONTROL, FlowControl } from './flow-control.js';
export type { FlowControlOptions } from './flow-control.js';
export { FairQueues } from './fair-queues.js';
export type { FairQueuesOptions, RejectReason, Waiter } from './fair-queues.js';
