import { Observable, asyncScheduler, type SchedulerLike } from 'rxjs';
import { JOB_TRACKING_FINALIZER, type Pod } from '../../src/api/index.js';
import { builtin, type InformerEvent } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult, type SyncedSource } from '../controller.js';
import { controllerOf, groupOfApiVersion } from '../controller-ref.js';
import { Expectations } from '../expectations.js';
import { observeOwned } from '../observe-owned.js';
import { orphanTriggers } from '../workload/index.js';
import { BackoffStore } from './failure-backoff.js';
import { JOB_TYPE } from './job-pods.js';
import { syncJob } from './sync-job.js';

export interface JobControllerOptions {
  /** Jobs synced at once (`--concurrent-job-syncs`, default 5). */
  readonly concurrency: number;
  /** The clock and timers (deadlines, back-off); tests pass a virtual one. Default: real time. */
  readonly scheduler?: SchedulerLike;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `job`).
const NAME = 'job-controller';

/**
 * The Job controller (kube-controller-manager's `job`): runs a Job's pods to its completions,
 * NonIndexed or Indexed, within its back-off limits, pod failure policy, success policy and active
 * deadline, and counts each pod's end exactly once through the `batch.svc.io/job-tracking`
 * finalizer and `status.uncountedTerminatedPods` (docs/jobs.md).
 */
export function jobController(ctx: ControllerContext, options: JobControllerOptions): Observable<ControllerResult<unknown>> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const now = () => scheduler.now();
  const jobs = ctx.informers.informer(builtin.jobs);
  const pods = ctx.informers.informer(builtin.pods);
  const expectations = new Expectations({ now });
  const finalizerExpectations = new Expectations({ now });
  const deps = {
    client: ctx.client,
    pods,
    expectations,
    finalizerExpectations,
    backoff: new BackoffStore(),
    events: ctx.events,
    now,
  };
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: jobs,
    owns: [{ events: pods, group: JOB_TYPE.group, kind: JOB_TYPE.kind }],
    watches: [observeOwned(expectations, pods, JOB_TYPE), observeFinalizerRemovals(finalizerExpectations, pods), orphanTriggers(pods, jobs, (job) => job.spec.selector)],
    concurrency: options.concurrency,
    stop$: ctx.stop$,
    scheduler,
    reconcile: (key) => {
      const job = jobs.store.get(key);
      if (!job) {
        expectations.delete(key);
        finalizerExpectations.delete(key);
        deps.backoff.delete(key);
        return;
      }
      return syncJob(deps, key, job);
    },
  });
}

/**
 * Reports each pod's tracking finalizer seen gone (removed, or the pod deleted) to the finalizer
 * expectations, under its Job's key, and emits that key: a Job whose removals are not in the
 * cache yet is not synced (it would count those pods again).
 */
function observeFinalizerRemovals(expectations: Expectations, pods: SyncedSource<InformerEvent<Pod>>): SyncedSource<string> {
  const keys = new Observable<string>((subscriber) =>
    pods.events$.subscribe({
      next: (event) => {
        const owner = controllerOf(event.object);
        if (!owner || owner.kind !== JOB_TYPE.kind || groupOfApiVersion(owner.apiVersion) !== JOB_TYPE.group) return;
        const gone =
          event.type === 'deleted' ||
          (event.type === 'updated' && event.old.metadata.finalizers?.includes(JOB_TRACKING_FINALIZER) === true && event.object.metadata.finalizers?.includes(JOB_TRACKING_FINALIZER) !== true);
        if (!gone) return;
        const key = `${event.object.metadata.namespace}/${owner.name}`;
        expectations.deletionObserved(key, event.object.metadata.uid!);
        subscriber.next(key);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
  return { events$: keys, synced$: pods.synced$ };
}
