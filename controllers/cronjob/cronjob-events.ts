import { randomBytes } from 'node:crypto';
import { rfc3339, type CoreEvent, type CronJob } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';

/** Where the CronJob controller reports what it did (core/v1 Events on the CronJob). */
export interface CronJobEvents {
  record(cronJob: CronJob, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** Most Events in flight at once; beyond it new ones are dropped (Events are best effort, as client-go's). */
const MAX_IN_FLIGHT = 16;

/**
 * Best-effort core/v1 Events from `cronjob-controller`, sent without waiting: a sync never waits
 * for or fails on an Event. TODO(runtime merge): the manager's shared Event recorder.
 */
export function cronJobEvents(client: Client, now: () => number): CronJobEvents {
  let inFlight = 0;
  return {
    record(cronJob, type, reason, message) {
      if (inFlight >= MAX_IN_FLIGHT) return;
      const { namespace, name, uid, resourceVersion } = cronJob.metadata;
      const at = rfc3339(now());
      const event: CoreEvent = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${name}.${randomBytes(8).toString('hex')}`, namespace },
        involvedObject: { apiVersion: 'batch/v1', kind: 'CronJob', namespace, name, uid, resourceVersion },
        type,
        reason,
        message,
        source: { component: 'cronjob-controller' },
        reportingComponent: 'cronjob-controller',
        firstTimestamp: at,
        lastTimestamp: at,
        count: 1,
      };
      inFlight++;
      client
        .create(builtin.coreEvents, event, { namespace })
        .catch(() => undefined)
        .finally(() => inFlight--);
    },
  };
}
