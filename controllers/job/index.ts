// Public surface of controllers/job: the Job controller (docs/jobs.md).
export { jobController } from './job-controller.js';
export type { JobControllerOptions } from './job-controller.js';
export { JOB_COMPLETION_INDEX_ENV } from './job-pods.js';
