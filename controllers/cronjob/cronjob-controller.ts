import { Observable, asyncScheduler, type SchedulerLike } from 'rxjs';
import { builtin } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { CRONJOB_TYPE, syncCronJob } from './sync-cronjob.js';

export interface CronJobControllerOptions {
  /** CronJobs synced at once (`--concurrent-cron-job-syncs`, default 5). */
  readonly concurrency: number;
  /** The clock and timers (schedule times); tests pass a virtual one. Default: real time. */
  readonly scheduler?: SchedulerLike;
}

const NAME = 'cronjob-controller';

/**
 * The CronJob controller (kube-controller-manager's `cronjob`): starts a Job at each schedule
 * time (five-field cron or a macro, in `timeZone`), under `concurrencyPolicy` and
 * `startingDeadlineSeconds`, keeps `status.active`, `lastScheduleTime`, `lastSuccessfulTime`,
 * and deletes finished Jobs beyond the history limits (docs/jobs.md).
 */
export function cronJobController(ctx: ControllerContext, options: CronJobControllerOptions): Observable<ControllerResult<unknown>> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const now = () => scheduler.now();
  const cronJobs = ctx.informers.informer(builtin.cronJobs);
  const jobs = ctx.informers.informer(builtin.jobs);
  const deps = { client: ctx.client, jobs, events: ctx.events, now };
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: cronJobs,
    owns: [{ events: jobs, group: CRONJOB_TYPE.group, kind: CRONJOB_TYPE.kind }],
    concurrency: options.concurrency,
    stop$: ctx.stop$,
    scheduler,
    reconcile: (key) => {
      const cronJob = cronJobs.store.get(key);
      return cronJob ? syncCronJob(deps, cronJob) : undefined;
    },
  });
}
