import { isStatusError, type Pod } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import type { Expectations } from '../expectations.js';
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from './slow-start.js';

export interface CreatePodsOptions {
  readonly client: Client;
  readonly expectations: Expectations;
  /** The owner's controller key (`namespace/name`), under which the creations are expected. */
  readonly key: string;
  readonly count: number;
  /** The pod to create at each call (`podFromTemplate(...)`); `index` counts from 0. */
  readonly pod: (index: number) => Pod;
  /** Each pod created, as the server answered it (for the owner's `SuccessfulCreate` Event). */
  readonly onCreated?: (pod: Pod) => void;
  /** Each create that failed (for the owner's `FailedCreate` Event). */
  readonly onFailed?: (error: unknown) => void;
}

export interface CreatePodsResult {
  readonly created: number;
  /** The first failure; the batches stopped after it. */
  readonly error?: unknown;
}

/**
 * Creates `count` pods in slow-start batches with the expectations kept right: `count` creations
 * expected before the first write, and one observed for every pod that will never show up (a
 * failed create, or one not attempted after a failed batch), as upstream's ReplicaSet and Job
 * controllers do. A create refused because the namespace is terminating is no failure (the
 * namespace is going, its pods with it), and counts as neither created nor failed.
 */
export async function createPods(options: CreatePodsOptions): Promise<CreatePodsResult> {
  const { client, expectations, key, count } = options;
  if (count <= 0) return { created: 0 };
  expectations.expectCreations(key, count);
  let refused = 0;
  const { successes, error } = await slowStartBatch(count, SLOW_START_INITIAL_BATCH_SIZE, async (index) => {
    const pod = options.pod(index);
    try {
      // Not `onCreated?.(await create(...))`: an optional call skips its arguments, so the create
      // would not be made at all when nobody listens.
      // As a view: the callers read its name, and decoding the whole answer (a pod with its
      // managedFields) cost more than making it, per pod.
      const created = await client.create(builtin.pods, pod, { namespace: pod.metadata.namespace, decode: 'protobuf' });
      options.onCreated?.(created);
    } catch (failure) {
      if (isNamespaceTerminating(failure)) {
        expectations.creationObserved(key);
        refused += 1;
        return;
      }
      options.onFailed?.(failure);
      throw failure;
    }
  });
  // Everything not created (failed, or never tried) will never be observed.
  for (let i = successes; i < count; i++) expectations.creationObserved(key);
  const created = successes - refused;
  return error === undefined ? { created } : { created, error };
}

/** NamespaceLifecycle refuses new objects in a namespace being deleted (upstream's NamespaceTerminatingCause). */
export function isNamespaceTerminating(error: unknown): boolean {
  return isStatusError(error) && error.reason === 'Forbidden' && /being terminated/.test(error.message);
}
