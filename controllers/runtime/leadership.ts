import { Subject, type Observable } from 'rxjs';
import { leaderElection, type LeaseClient } from '../../operators/index.js';
import { builtin, type Client, type Resource } from '../../src/client/index.js';
import type { Lease } from '../../src/api/index.js';
import type { ManagerLog } from './log.js';
import type { Term } from './term.js';

/**
 * Runs terms of work while this process leads. A term starts when the election says `true` and
 * is drained (bounded by its drain timeout) when it says `false`; a new term never starts before
 * the previous one has drained. Losing the lease does not end the process: it drains and
 * campaigns again, so an in-process manager (svc up) recovers without a restart. Stopping drains
 * the term first, then ends the election through its `stop$`, which releases the Lease (holder
 * cleared, after any renewal in flight) and completes once that write is answered: stop() awaits
 * it, so a successor takes over at once rather than after the lease duration.
 */

export interface ElectionSettings {
  readonly lease: { readonly namespace: string; readonly name: string };
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export interface Leadership {
  /** Whether a term is running now. */
  leading(): boolean;
  /** Resolves when this process first leads (at once without election). */
  readonly firstTerm: Promise<void>;
  /**
   * Why this leader looks stuck, or undefined: it leads but has not written its Lease for longer
   * than the lease duration (as kube's leader-election health check), so others may lead too.
   */
  stuck(): string | undefined;
  /** Drains the running term, then releases the Lease. Idempotent. */
  stop(): Promise<void>;
}

export interface LeadershipOptions {
  /** Without it the process leads from the start (`--leader-elect=false`). */
  readonly election?: ElectionSettings;
  readonly client: Client;
  readonly startTerm: () => Term;
  readonly onLeading?: (leads: boolean) => void;
  readonly log: ManagerLog;
}

export function runLeadership(options: LeadershipOptions): Leadership {
  const { log } = options;
  let term: Term | undefined;
  let draining: Promise<void> = Promise.resolve();
  let wantLead = false;
  let stopped = false;
  let markFirst!: () => void;
  const firstTerm = new Promise<void>((resolve) => (markFirst = resolve));

  const begin = (): void => {
    wantLead = true;
    // Start after the previous term has drained, if we still lead by then.
    void draining.then(() => {
      if (!wantLead || stopped || term !== undefined) return;
      term = options.startTerm();
      options.onLeading?.(true);
      markFirst();
    });
  };
  const end = (): Promise<void> => {
    wantLead = false;
    const current = term;
    term = undefined;
    if (current === undefined) return draining;
    options.onLeading?.(false);
    draining = draining.then(() => current.stop());
    return draining;
  };

  const client = options.client;
  // When this process last wrote the Lease (took or renewed it): the health check reads it.
  let lastWrite = Date.now();
  const wrote = <T>(result: T): T => ((lastWrite = Date.now()), result);
  const leaseClient: LeaseClient<Resource<Lease>> = {
    get: (resource, name, at) => client.get(resource, name, at),
    create: (resource, lease, at) => client.create(resource, lease as Lease, at).then(wrote),
    update: (resource, lease, at) => client.update(resource, lease as Lease, at).then(wrote),
  };

  // Ends the election: it releases the Lease if it leads, and `ended` settles when that is answered.
  const stopElection$ = new Subject<void>();
  let ended: Promise<void> = Promise.resolve();
  const election = options.election;
  if (election === undefined) {
    begin();
  } else {
    const leader$: Observable<boolean> = leaderElection<Resource<Lease>>({
      client: leaseClient,
      resource: builtin.leases,
      lease: election.lease,
      identity: election.identity,
      leaseDuration: election.leaseDurationMs,
      renewDeadline: election.renewDeadlineMs,
      retryPeriod: election.retryPeriodMs,
      stop$: stopElection$,
    });
    log.info(`waiting to lead through Lease ${election.lease.namespace}/${election.lease.name} as ${election.identity}`);
    ended = new Promise<void>((resolve) => {
      leader$.subscribe({
        next: (leads) => {
          if (leads) {
            log.info(`became leader (${election.identity})`);
            begin();
          } else if (!stopped) {
            log.warn(`lost the lease ${election.lease.namespace}/${election.lease.name}: draining controllers`);
            void end();
          }
        },
        complete: resolve,
      });
    });
  }

  let stopping: Promise<void> | undefined;
  return {
    leading: () => term !== undefined,
    firstTerm,
    stuck() {
      if (election === undefined || term === undefined || stopped) return undefined;
      const since = Date.now() - lastWrite;
      return since > election.leaseDurationMs ? `leading, but the Lease was last renewed ${Math.round(since / 1000)}s ago` : undefined;
    },
    stop() {
      stopping ??= (async () => {
        stopped = true;
        await end();
        stopElection$.next(); // releases the Lease when we led
        // A server that does not answer holds the release no longer than a renewal would be waited for.
        let bound: NodeJS.Timeout | undefined;
        await Promise.race([ended, new Promise((resolve) => (bound = setTimeout(resolve, election?.renewDeadlineMs ?? 0)))]);
        clearTimeout(bound);
      })();
      return stopping;
    },
  };
}

