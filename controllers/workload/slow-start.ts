/**
 * Calls `fn` `count` times in batches of 1, 2, 4, … (from `initialBatchSize`), the calls of a
 * batch at once, and stops after the first batch with a failure, as upstream's slowStartBatch: a
 * create that the server refuses (quota, admission) fails once or a few times, not `count` times.
 * Answers how many calls succeeded and the first error, if any.
 */
export async function slowStartBatch(count: number, initialBatchSize: number, fn: (index: number) => Promise<unknown>): Promise<{ readonly successes: number; readonly error?: unknown }> {
  let remaining = count;
  let successes = 0;
  let started = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const first = started;
    started += batch;
    const settled = await Promise.allSettled(Array.from({ length: batch }, (_, i) => fn(first + i)));
    const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    successes += settled.filter((result) => result.status === 'fulfilled').length;
    if (failed) return { successes, error: failed.reason };
    remaining -= batch;
  }
  return { successes };
}

/** Upstream's SlowStartInitialBatchSize. */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;
