import { isStatusError, type Pod } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import type { Expectations } from '../expectations.js';

export interface DeletePodsOptions {
  readonly client: Client;
  readonly expectations: Expectations;
  /** The owner's controller key, under which the deletions are expected. */
  readonly key: string;
  readonly pods: readonly Pod[];
  /** Each pod deleted (for the owner's `SuccessfulDelete` Event). */
  readonly onDeleted?: (pod: Pod) => void;
  /** Each delete that failed but for a 404 or a changed uid (for `FailedDelete`). */
  readonly onFailed?: (pod: Pod, error: unknown) => void;
}

/**
 * Deletes the pods at once, with their uids expected as deletions first; a delete that fails
 * will never be observed, so its expectation is lowered (upstream does the same, 404 included:
 * the pod is gone already and its event may have passed). Each delete names the pod's uid as a
 * precondition, so a pod of the same name made since is left alone. Answers the first failure
 * other than a 404.
 */
export async function deletePods(options: DeletePodsOptions): Promise<{ readonly deleted: number; readonly error?: unknown }> {
  const { client, expectations, key, pods } = options;
  if (pods.length === 0) return { deleted: 0 };
  expectations.expectDeletions(key, pods.map((pod) => pod.metadata.uid ?? ''));
  let deleted = 0;
  let firstError: unknown;
  await Promise.all(
    pods.map(async (pod) => {
      const { name, namespace, uid } = pod.metadata;
      try {
        await client.delete(builtin.pods, name!, { namespace, ...(uid ? { preconditions: { uid } } : {}) });
        deleted += 1;
        options.onDeleted?.(pod);
      } catch (error) {
        expectations.deletionObserved(key, uid ?? '');
        if (isStatusError(error, 'NotFound') || isStatusError(error, 'Conflict')) return;
        options.onFailed?.(pod, error);
        firstError ??= error;
      }
    }),
  );
  return firstError === undefined ? { deleted } : { deleted, error: firstError };
}
