/**
 * Upstream's pod failure back-off: after a pod fails, the next pod is created no sooner than
 * 10 s × 2^(failures since the last success − 1), at most 10 minutes, after that failure.
 */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 10 * 60_000;

/** When the next pod may be created, given failures since the last success and when the last one ended. */
export function nextCreateAt(failuresSinceSuccess: number, lastFailureAt: number | undefined): number {
  if (failuresSinceSuccess <= 0 || lastFailureAt === undefined) return -Infinity;
  const delay = Math.min(MAX_POD_FAILURE_BACKOFF_MS, POD_FAILURE_BACKOFF_MS * 2 ** Math.min(failuresSinceSuccess - 1, 30));
  return lastFailureAt + delay;
}

/** Per Job: failures counted since its last success, and when the last of them ended. */
export interface BackoffRecord {
  failuresSinceSuccess: number;
  lastFailureAt: number | undefined;
}

/**
 * The back-off records of the Jobs, kept in memory as upstream's podBackoffStore: the counted
 * pods are gone (their finalizer removed, maybe garbage collected), so their times are kept here.
 * After a restart a Job starts again without back-off, as upstream after a restart.
 */
export class BackoffStore {
  readonly #records = new Map<string, BackoffRecord>();

  get(key: string): BackoffRecord {
    return this.#records.get(key) ?? { failuresSinceSuccess: 0, lastFailureAt: undefined };
  }

  /** Newly counted ends, in finish order: a success resets the count, each failure adds one. */
  record(key: string, ends: readonly { readonly failed: boolean; readonly at: number }[]): void {
    if (ends.length === 0) return;
    const record = { ...this.get(key) };
    for (const end of [...ends].sort((a, b) => a.at - b.at)) {
      if (end.failed) {
        record.failuresSinceSuccess += 1;
        record.lastFailureAt = Math.max(record.lastFailureAt ?? end.at, end.at);
      } else {
        record.failuresSinceSuccess = 0;
        record.lastFailureAt = undefined;
      }
    }
    this.#records.set(key, record);
  }

  delete(key: string): void {
    this.#records.delete(key);
  }
}
