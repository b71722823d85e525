import { asyncScheduler, catchError, defer, exhaustMap, of, timer, type Observable, type SchedulerLike } from 'rxjs';
import { isStatusError, type Node } from '../../api/index.js';
import { builtin, type Client } from '../../client/index.js';
import { statusFingerprint, type OwnedStatus, type StatusSource } from './node-status.js';

/** One status check: whether it wrote, and what. */
export type StatusCheck =
  | { readonly posted: true; readonly reason: 'changed' | 'due'; readonly node: Node; readonly status: OwnedStatus }
  | { readonly posted: false; readonly status: OwnedStatus }
  | { readonly posted: false; readonly error: unknown };

export interface StatusUpdateOptions {
  readonly client: Client;
  readonly nodeName: string;
  readonly source: StatusSource;
  /** `--node-status-report-frequency`: an unchanged status is written again this often. */
  readonly frequencyMs: number;
  /** How often the status is read to find a change. */
  readonly checkIntervalMs: number;
  readonly scheduler?: SchedulerLike;
  /** The Ready status the Node had when the agent started (a restart is not a transition). */
  readonly initialReady?: string | undefined;
  /** Called after each write with the Ready status before and after it (before: undefined at first). */
  readonly onPosted?: (check: Extract<StatusCheck, { posted: true }>, previousReady: string | undefined) => void;
}

/**
 * The node's status, read every `checkIntervalMs` and written through nodes/<name>/status only
 * when it differs from the last written one (heartbeat times aside) or `frequencyMs` has passed
 * since that write, as the kubelet posts: a change reaches the server within one check, and an
 * idle node costs one write per frequency. A check still running skips the next tick. A failed
 * write is tried again at the next check (nothing counts as written until the server says so).
 *
 * The write is a JSON merge patch of the fields the agent owns: whole arrays (conditions,
 * addresses) replace the stored ones, and fields others own (images, volumes) are left alone.
 */
export function statusUpdates(options: StatusUpdateOptions): Observable<StatusCheck> {
  const scheduler = options.scheduler ?? asyncScheduler;
  let lastFingerprint: string | undefined;
  let lastPostAt = -Infinity;
  let lastReady = options.initialReady;

  const check = async (): Promise<StatusCheck> => {
    const now = scheduler.now();
    const status = await options.source.read(now);
    const fingerprint = statusFingerprint(status);
    const changed = fingerprint !== lastFingerprint;
    if (!changed && now - lastPostAt < options.frequencyMs) return { posted: false, status };
    const node = await options.client.patchStatus(builtin.nodes, options.nodeName, { status });
    lastFingerprint = fingerprint;
    lastPostAt = now;
    const result = { posted: true as const, reason: changed ? ('changed' as const) : ('due' as const), node, status };
    const previousReady = lastReady;
    lastReady = status.conditions.find((c) => c.type === 'Ready')?.status;
    options.onPosted?.(result, previousReady);
    return result;
  };

  return timer(0, options.checkIntervalMs, scheduler).pipe(
    exhaustMap(() => defer(check).pipe(catchError((error: unknown) => of<StatusCheck>({ posted: false, error })))),
  );
}

/** Is this check's failure the Node having been deleted? */
export const nodeGone = (check: StatusCheck): boolean => 'error' in check && isStatusError(check.error, 'NotFound');
