import { share, tap, type Observable } from 'rxjs';
import { builtin } from '../../src/client/index.js';
import { leaderElection, whileLeader } from '../../operators/index.js';
import { scheduler, SCHEDULER_NAME, type ScheduleResult, type SchedulerOptions, type SchedulerState } from './scheduler.js';

export interface LeaderElectedSchedulerOptions extends SchedulerOptions {
  /** This candidate's identity, unique among the replicas (`hostname_uuid`). */
  readonly identity: string;
  /** The Lease. Default `svc-system/svc-scheduler`. */
  readonly lease?: { readonly namespace: string; readonly name: string };
  /** ms; defaults 15 000 / 10 000 / 2 000, as kube-scheduler. */
  readonly leaseDuration?: number;
  readonly renewDeadline?: number;
  readonly retryPeriod?: number;
  /** Called with `true` on becoming leader and `false` on losing it. */
  readonly onLeading?: (leading: boolean) => void;
  /**
   * Ends the election: the scheduler stops, the Lease is released (holder cleared, so another
   * replica takes over at once) and the results complete once that write has been answered, so a
   * graceful stop awaits the completion.
   */
  readonly stop$?: Observable<unknown>;
}

/**
 * The scheduler run only while this replica holds the Lease (`svc-system/svc-scheduler` by
 * default): each term of leadership starts a fresh scheduler — informers, cache and queue — and a
 * lost lease stops it at once. A graceful stop emits on `stop$` and waits for the results to
 * complete: by then the Lease has been released. Unsubscribing releases it too, but nobody can
 * wait for that write.
 */
export function leaderElectedScheduler(options: LeaderElectedSchedulerOptions, onState?: (state: SchedulerState) => void): Observable<ScheduleResult> {
  const lease = options.lease ?? { namespace: 'svc-system', name: SCHEDULER_NAME };
  const leading$ = leaderElection({
    client: options.client,
    resource: builtin.leases,
    lease,
    identity: options.identity,
    ...(options.leaseDuration !== undefined ? { leaseDuration: options.leaseDuration } : {}),
    ...(options.renewDeadline !== undefined ? { renewDeadline: options.renewDeadline } : {}),
    ...(options.retryPeriod !== undefined ? { retryPeriod: options.retryPeriod } : {}),
    ...(options.stop$ !== undefined ? { stop$: options.stop$ } : {}),
  }).pipe(
    tap((leading) => options.onLeading?.(leading)),
    share(),
  );
  return scheduler(options, onState).pipe(whileLeader(leading$));
}
