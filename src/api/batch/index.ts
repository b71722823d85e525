// batch/v1's rules and formats shared by the API server (validation) and the Job and CronJob controllers.
export * from './batch-names.js';
export { parseCronSchedule, timeZoneProblem, type CronSchedule } from './cron-schedule.js';
export { formatIndexIntervals, parseIndexIntervals } from './index-intervals.js';
export { cronJobStrategy, jobStrategy, validateJobSpec } from './job-strategy.js';
