// Public surface of controllers/cronjob: the CronJob controller (docs/jobs.md).
export { cronJobController } from './cronjob-controller.js';
export type { CronJobControllerOptions } from './cronjob-controller.js';
export { jobName, MAX_MISSED_SCHEDULES } from './sync-cronjob.js';
