export { DEFAULT_FLOW_CONTROL, installFlowControl } from './flow-control.js';
export type { FlowControlOptions, FlowControlState } from './flow-control.js';
export { FairQueues } from './fair-queues.js';
export type { FairQueuesOptions, RejectReason, Waiter } from './fair-queues.js';
