// Pod updates paced by the clock, shared by the two ways bench/controllers/manager-scale.ts makes
// them: PATCHes through the API (pod-update-load.ts, a process of its own) and writes to the store
// inside the API server's process (server.ts). Each update sets the annotation SENT_ANNOTATION to
// its send time, which the manager (started with --latency-annotation) measures its reconciles from.

/** The annotation holding an update's send time, ms since the epoch (`performance.timeOrigin + performance.now()`). */
export const SENT_ANNOTATION = 'bench/sent';

export interface PodUpdateJob {
  readonly namespace: string;
  /** The pods to update, round robin, in this order. */
  readonly pods: readonly string[];
  readonly rate: number;
  readonly seconds: number;
}

export interface PodUpdateResult {
  /** Updates made. */
  readonly sent: number;
  readonly failed: number;
  /** Updates the schedule owed but that were dropped because `inFlight` were open. */
  readonly dropped: number;
  readonly seconds: number;
}

/** Now, as a send time for SENT_ANNOTATION. */
export const sentNow = (): string => String(performance.timeOrigin + performance.now());

/**
 * Calls `update(pod)` round robin over `job.pods`, `job.rate` a second for `job.seconds`, at most
 * `inFlight` at once. Updates the schedule owed while `inFlight` were open are dropped, not sent in
 * a burst later: a target that cannot keep up shows as a lower rate done.
 */
export async function pacedUpdates(job: PodUpdateJob, update: (pod: string) => Promise<void>, inFlight: number): Promise<PodUpdateResult> {
  const TICK_MS = 5;
  let sent = 0;
  let failed = 0;
  let dropped = 0;
  let open = 0;
  let next = 0;
  let firstError: unknown;
  const one = async (): Promise<void> => {
    const pod = job.pods[next++ % job.pods.length]!;
    open++;
    try {
      await update(pod);
      sent++;
    } catch (error) {
      failed++;
      firstError ??= error;
    } finally {
      open--;
    }
  };
  const t0 = performance.now();
  const end = t0 + job.seconds * 1_000;
  let due = 0; // updates owed so far by the schedule
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      const owed = Math.floor(((Math.min(now, end) - t0) / 1_000) * job.rate);
      while (due < owed && open < inFlight) {
        due++;
        void one();
      }
      dropped += owed - due;
      due = owed;
      if (now >= end) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  while (open > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  if (firstError !== undefined) process.stderr.write(`pod updates: ${failed} failed; the first: ${(firstError as Error).message}\n`);
  return { sent, failed, dropped, seconds: (performance.now() - t0) / 1_000 };
}
