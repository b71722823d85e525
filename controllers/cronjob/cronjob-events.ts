import type { CronJob } from '../../src/api/index.js';
import type { EventSink } from '../../src/client/index.js';

/** Where the CronJob controller reports what it did (core/v1 Events on the CronJob). */
export interface CronJobEvents {
  record(cronJob: CronJob, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/**
 * The CronJob's Events through the loop's recorder (`ctx.events`: the runtime's shared
 * EventRecorder reporting as the loop's name): best effort, counted when repeated, and a sync
 * never waits for or fails on one.
 */
export function cronJobEvents(events: EventSink): CronJobEvents {
  return {
    record(cronJob, type, reason, message) {
      const { namespace, name, uid, resourceVersion } = cronJob.metadata;
      events.record({ apiVersion: 'batch/v1', kind: 'CronJob', namespace, name: name ?? '', uid, resourceVersion }, type, reason, message);
    },
  };
}
