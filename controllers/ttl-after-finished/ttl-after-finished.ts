import { Observable, asyncScheduler, type SchedulerLike } from 'rxjs';
import { isStatusError, type Job } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { requeueAfter, type Outcome } from '../../operators/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';

export interface TtlAfterFinishedOptions {
  /** Jobs handled at once (`--concurrent-ttl-after-finished-syncs`, default 5). */
  readonly concurrency: number;
  /** The clock and timers; tests pass a virtual one. Default: real time. */
  readonly scheduler?: SchedulerLike;
}

const NAME = 'ttl-after-finished-controller';

/**
 * Deletes a finished Job (Complete or Failed) `spec.ttlSecondsAfterFinished` after it finished
 * (its condition's lastTransitionTime), with background propagation as upstream: the Job goes at
 * once, the garbage collector removes its pods. Before deleting it reads the Job fresh: a TTL
 * raised or removed meanwhile is honoured, and the delete names the uid and resourceVersion judged.
 */
export function ttlAfterFinishedController(ctx: ControllerContext, options: TtlAfterFinishedOptions): Observable<ControllerResult<unknown>> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const jobs = ctx.informers.informer(builtin.jobs);
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: jobs,
    concurrency: options.concurrency,
    stop$: ctx.stop$,
    scheduler,
    reconcile: async (key) => {
      const job = jobs.store.get(key);
      if (!job) return;
      const wait = expiresIn(job, scheduler.now());
      if (wait === undefined) return;
      if (wait > 0) return requeueAfter(wait);
      return deleteIfExpired(ctx.client, job, scheduler.now());
    },
  });
}

/** When a Job finished: the lastTransitionTime of its Complete or Failed condition. */
function finishedAt(job: Job): number | undefined {
  const condition = job.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  return condition?.lastTransitionTime === undefined ? undefined : Date.parse(condition.lastTransitionTime);
}

/** Ms left before the Job may go (≤ 0: now); undefined when it has no TTL, has not finished or is going. */
function expiresIn(job: Job, now: number): number | undefined {
  const ttl = job.spec.ttlSecondsAfterFinished;
  if (ttl === undefined || job.metadata.deletionTimestamp !== undefined) return undefined;
  const finished = finishedAt(job);
  if (finished === undefined) return undefined;
  return finished + ttl * 1000 - now;
}

async function deleteIfExpired(client: Client, cached: Job, now: number): Promise<Outcome<unknown> | void> {
  const { name, namespace } = cached.metadata;
  let job: Job;
  try {
    job = await client.get(builtin.jobs, name!, { namespace });
  } catch (error) {
    if (isStatusError(error, 'NotFound')) return;
    throw error;
  }
  const wait = expiresIn(job, now);
  if (wait === undefined) return;
  if (wait > 0) return requeueAfter(wait);
  try {
    await client.delete(builtin.jobs, name!, {
      namespace,
      propagationPolicy: 'Background',
      preconditions: { uid: job.metadata.uid!, resourceVersion: job.metadata.resourceVersion! },
    });
  } catch (error) {
    if (isStatusError(error, 'NotFound')) return;
    throw error;
  }
}
