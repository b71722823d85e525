import {
  CRONJOB_SCHEDULED_TIMESTAMP,
  isStatusError,
  parseCronSchedule,
  rfc3339,
  type CronJob,
  type CronSchedule,
  type Job,
} from '../../src/api/index.js';
import { builtin, type Client, type EventSink, type Informer, type InvolvedObject } from '../../src/client/index.js';
import { requeueAfter, type Outcome } from '../../operators/index.js';
import { controllerOf, controllerRef } from '../controller-ref.js';

/** What a CronJob's sync reads and writes with. */
export interface CronJobSyncDeps {
  readonly client: Client;
  readonly jobs: Informer<Job>;
  /** Events about the CronJob (the runtime's shared recorder). */
  readonly events: EventSink;
  readonly now: () => number;
}

export const CRONJOB_TYPE = { group: 'batch', version: 'v1', kind: 'CronJob' } as const;

/** Upstream's limit: past this many missed start times, the CronJob says so (an event) and starts only the latest. */
export const MAX_MISSED_SCHEDULES = 100;
/** Upstream looks again this long after the next schedule time, so that the time has surely passed. */
const NEXT_SCHEDULE_DELTA_MS = 100;

type ActiveRef = NonNullable<NonNullable<CronJob['status']>['active']>[number];

const about = (cronJob: CronJob): InvolvedObject => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  name: cronJob.metadata.name!,
  namespace: cronJob.metadata.namespace,
  uid: cronJob.metadata.uid,
  resourceVersion: cronJob.metadata.resourceVersion,
});

const finishedCondition = (job: Job) => job.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');

/**
 * One sync of a CronJob, as upstream's cronjob controller (v2): bring `status.active` in line with
 * its Jobs, note the last success, delete finished Jobs beyond the history limits, and when a
 * schedule time has come (and its starting deadline has not passed) start its Job under the
 * concurrency policy. Answers when to look again: the next schedule time.
 */
export async function syncCronJob(deps: CronJobSyncDeps, cronJob: CronJob): Promise<Outcome<unknown> | void> {
  const now = deps.now();
  const uid = cronJob.metadata.uid!;
  const owned = deps.jobs.byOwner(uid).filter((job) => controllerOf(job)?.uid === uid);
  const status = cronJob.status ?? {};
  let active: ActiveRef[] = [...(status.active ?? [])];
  let lastSuccessfulTime = status.lastSuccessfulTime;
  let lastScheduleTime = status.lastScheduleTime;

  // 1. status.active: the Jobs of this CronJob still running.
  const byUid = new Map(owned.map((job) => [job.metadata.uid!, job]));
  for (const job of owned) {
    const finished = finishedCondition(job);
    const listed = active.some((ref) => ref.uid === job.metadata.uid);
    if (!finished && !listed) active.push(refTo(job));
    if (finished && listed) {
      active = active.filter((ref) => ref.uid !== job.metadata.uid);
      deps.events.record(about(cronJob), 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, condition: ${finished.type}`);
    }
    if (finished?.type === 'Complete' && job.status?.completionTime && (lastSuccessfulTime === undefined || job.status.completionTime > lastSuccessfulTime)) {
      lastSuccessfulTime = job.status.completionTime;
    }
  }
  // A listed Job not in the cache may only be late there: the server decides whether it is gone.
  for (const ref of [...active]) {
    if (byUid.has(ref.uid!)) continue;
    if (!(await jobExists(deps.client, cronJob.metadata.namespace!, ref))) active = active.filter((r) => r.uid !== ref.uid);
  }

  // 2. History limits: the oldest finished Jobs beyond them go (background propagation).
  await cleanupHistory(deps, cronJob, owned);

  const writeStatus = async () => {
    const next = { ...status, active: active.length > 0 ? active : undefined, lastScheduleTime, lastSuccessfulTime };
    if (sameStatus(status, next)) return;
    const { active: a, lastScheduleTime: s, lastSuccessfulTime: l, ...rest } = next;
    await deps.client.updateStatus(builtin.cronJobs, {
      ...cronJob,
      status: { ...rest, ...(a ? { active: a } : {}), ...(s ? { lastScheduleTime: s } : {}), ...(l ? { lastSuccessfulTime: l } : {}) },
    });
  };

  if (cronJob.metadata.deletionTimestamp !== undefined) return writeStatus();
  const schedule = parseCronSchedule(cronJob.spec.schedule, cronJob.spec.timeZone);
  if (typeof schedule === 'string') {
    // The API refuses these; one stored before (or a zone the host no longer knows) waits for a fix.
    deps.events.record(about(cronJob), 'Warning', cronJob.spec.timeZone && schedule.includes('time zone') ? 'UnknownTimeZone' : 'UnparseableSchedule', schedule);
    return writeStatus();
  }
  if (cronJob.spec.suspend === true) return writeStatus();

  // 3. Is a start due? The latest schedule time since the last start (or creation), within the starting deadline.
  const { scheduled, missed } = mostRecentScheduleTime(cronJob, schedule, now);
  const nextIn = () => requeueAfter(Math.max(1, schedule.next(new Date(now)).getTime() - now + NEXT_SCHEDULE_DELTA_MS));
  if (missed > MAX_MISSED_SCHEDULES) {
    deps.events.record(about(cronJob), 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
  }
  if (scheduled === undefined) {
    await writeStatus();
    return nextIn();
  }
  const deadline = cronJob.spec.startingDeadlineSeconds;
  if (deadline !== undefined && scheduled.getTime() + deadline * 1000 < now) {
    deps.events.record(about(cronJob), 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc3339(scheduled.getTime())}`);
    await writeStatus();
    return nextIn();
  }
  const name = jobName(cronJob, scheduled);
  // This schedule time's Job was made already (this sync's cache, or an earlier sync).
  if (owned.some((job) => job.metadata.name === name) || (lastScheduleTime !== undefined && Date.parse(lastScheduleTime) >= scheduled.getTime())) {
    await writeStatus();
    return nextIn();
  }
  const policy = cronJob.spec.concurrencyPolicy ?? 'Allow';
  if (policy === 'Forbid' && active.length > 0) {
    // Skipped, not queued: the next start is the next schedule time after the running one ends.
    await writeStatus();
    return nextIn();
  }
  if (policy === 'Replace') {
    for (const ref of active) {
      await deleteJob(deps.client, cronJob.metadata.namespace!, ref.name!, ref.uid);
      deps.events.record(about(cronJob), 'Normal', 'SuccessfulDelete', `Deleted job ${ref.name}`);
    }
    active = [];
  }

  let created: Job;
  try {
    created = await deps.client.create(builtin.jobs, jobFromTemplate(cronJob, scheduled, name));
    deps.events.record(about(cronJob), 'Normal', 'SuccessfulCreate', `Created job ${name}`);
  } catch (error) {
    if (!isStatusError(error, 'AlreadyExists')) {
      deps.events.record(about(cronJob), 'Warning', 'FailedCreate', `Error creating job: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
    // Made by an earlier sync whose status write was lost: take it as this time's Job if it is ours.
    created = await deps.client.get(builtin.jobs, name, { namespace: cronJob.metadata.namespace });
    if (controllerOf(created)?.uid !== uid) {
      deps.events.record(about(cronJob), 'Warning', 'FailedCreate', `Job ${name} exists and is not controlled by this CronJob`);
      await writeStatus();
      return nextIn();
    }
  }
  if (!active.some((ref) => ref.uid === created.metadata.uid) && !finishedCondition(created)) active.push(refTo(created));
  lastScheduleTime = rfc3339(scheduled.getTime());
  await writeStatus();
  return nextIn();
}

/** The latest schedule time in (earliest, now], and how many there were: upstream's mostRecentScheduleTime. */
export function mostRecentScheduleTime(cronJob: CronJob, schedule: CronSchedule, now: number): { scheduled: Date | undefined; missed: number } {
  let earliest = Date.parse(cronJob.status?.lastScheduleTime ?? cronJob.metadata.creationTimestamp!);
  const deadline = cronJob.spec.startingDeadlineSeconds;
  if (deadline !== undefined) earliest = Math.max(earliest, now - deadline * 1000);
  if (earliest >= now) return { scheduled: undefined, missed: 0 };
  // Counted up to one past the limit; the latest time is found from the end.
  const times = schedule.timesBetween(new Date(earliest), new Date(now), MAX_MISSED_SCHEDULES + 2);
  if (times.length === 0) return { scheduled: undefined, missed: 0 };
  if (times.length <= MAX_MISSED_SCHEDULES + 1) return { scheduled: times[times.length - 1], missed: times.length };
  return { scheduled: latestBefore(schedule, times[times.length - 1]!, now), missed: times.length };
}

/** The last schedule time at or before `now`, searching forward from `from` (a schedule time). */
function latestBefore(schedule: CronSchedule, from: Date, now: number): Date {
  let latest = from;
  for (;;) {
    const batch = schedule.timesBetween(latest, new Date(now), 1000);
    if (batch.length === 0) return latest;
    latest = batch[batch.length - 1]!;
    if (batch.length < 1000) return latest;
  }
}

/** Upstream's Job name: the CronJob's name and the schedule time in minutes since the epoch. */
export const jobName = (cronJob: CronJob, scheduled: Date): string => `${cronJob.metadata.name}-${Math.floor(scheduled.getTime() / 60_000)}`;

function jobFromTemplate(cronJob: CronJob, scheduled: Date, name: string): Job {
  const template = cronJob.spec.jobTemplate;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: cronJob.metadata.namespace,
      labels: { ...template.metadata?.labels },
      annotations: { ...template.metadata?.annotations, [CRONJOB_SCHEDULED_TIMESTAMP]: rfc3339(scheduled.getTime()) },
      ownerReferences: [controllerRef(cronJob, CRONJOB_TYPE)],
    },
    spec: template.spec,
  } as Job;
}

const refTo = (job: Job): ActiveRef => ({
  kind: 'Job',
  apiVersion: 'batch/v1',
  name: job.metadata.name!,
  namespace: job.metadata.namespace!,
  uid: job.metadata.uid!,
  resourceVersion: job.metadata.resourceVersion!,
});

async function cleanupHistory(deps: CronJobSyncDeps, cronJob: CronJob, owned: readonly Job[]): Promise<void> {
  const finished = owned.filter((job) => finishedCondition(job) !== undefined && job.metadata.deletionTimestamp === undefined);
  const successful = finished.filter((job) => finishedCondition(job)!.type === 'Complete');
  const failed = finished.filter((job) => finishedCondition(job)!.type === 'Failed');
  const excess = (jobs: Job[], limit: number | undefined) => {
    if (limit === undefined) return [];
    const byStart = [...jobs].sort((a, b) => startOf(a).localeCompare(startOf(b)));
    return byStart.slice(0, Math.max(0, byStart.length - limit));
  };
  for (const job of [...excess(successful, cronJob.spec.successfulJobsHistoryLimit), ...excess(failed, cronJob.spec.failedJobsHistoryLimit)]) {
    await deleteJob(deps.client, job.metadata.namespace!, job.metadata.name!, job.metadata.uid);
    deps.events.record(about(cronJob), 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
  }
}

const startOf = (job: Job): string => job.status?.startTime ?? job.metadata.creationTimestamp ?? '';

async function deleteJob(client: Client, namespace: string, name: string, uid: string | undefined): Promise<void> {
  try {
    await client.delete(builtin.jobs, name, { namespace, propagationPolicy: 'Background', ...(uid ? { preconditions: { uid } } : {}) });
  } catch (error) {
    if (!isStatusError(error, 'NotFound') && !isStatusError(error, 'Conflict')) throw error;
  }
}

async function jobExists(client: Client, namespace: string, ref: ActiveRef): Promise<boolean> {
  try {
    const job = await client.get(builtin.jobs, ref.name!, { namespace });
    return job.metadata.uid === ref.uid && !finishedCondition(job);
  } catch (error) {
    if (isStatusError(error, 'NotFound')) return false;
    throw error;
  }
}

function sameStatus(a: object, b: object): boolean {
  const canonical = (value: unknown) =>
    JSON.stringify(value, (_k, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).sort(([x], [y]) => x.localeCompare(y))) : v));
  return canonical(a) === canonical(b);
}
