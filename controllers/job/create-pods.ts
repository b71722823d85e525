import type { Pod } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { controllerRef } from '../controller-ref.js';
import type { Job } from '../../src/api/index.js';
import { JOB_TYPE } from './job-pods.js';

/** What a batch of creates did: how many were made, and the errors of those that were not. */
export interface CreateResult {
  readonly created: number;
  readonly errors: unknown[];
}

/** Creates the pods of `owner` (each with its controller reference), as the shared workload code does. */
export type CreatePods = (owner: Job, pods: readonly Pod[]) => Promise<CreateResult>;

/**
 * Slow start (1, 2, 4, ... at once, stopping at the first batch with a failure), as upstream's
 * slowStartBatch: a quota or admission refusal costs one request, not hundreds.
 * TODO(wl-replicas merge): replaced by controllers/workload's pod creation.
 */
export const createPodsSlowStart = (client: Client): CreatePods => async (owner, pods) => {
  const reference = controllerRef(owner, JOB_TYPE);
  let created = 0;
  const errors: unknown[] = [];
  let at = 0;
  for (let size = 1; at < pods.length; size *= 2) {
    const batch = pods.slice(at, at + size);
    at += batch.length;
    const results = await Promise.allSettled(
      batch.map((pod) => client.create(builtin.pods, { ...pod, metadata: { ...pod.metadata, ownerReferences: [reference] } })),
    );
    for (const result of results) {
      if (result.status === 'fulfilled') created++;
      else errors.push(result.reason);
    }
    if (errors.length > 0) break;
  }
  return { created, errors };
};
