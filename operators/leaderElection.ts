import { asyncScheduler, from, Observable, take, type ObservableInput, type SchedulerLike, type Subscription } from 'rxjs';
import { requireFunction, requirePositive } from './validate.js';

/** A Lease as leader election reads and writes it (coordination.svc.io/v1 `leases`), structurally. */
export interface LeaseLike {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; resourceVersion?: string; [field: string]: unknown };
  spec?: LeaseSpecLike;
}

/** The fields of a Lease's spec that leader election uses; others are kept as they are. */
export interface LeaseSpecLike {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** RFC 3339 with microseconds (MicroTime). */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  [field: string]: unknown;
}

/**
 * The three requests leader election makes — `svc/client`'s `Client` fits as it is. Each answer may
 * be a promise or an observable (a fake store in a marble test answers on virtual time). A failed
 * `get` whose error has `code` 404 means the Lease does not exist; every other failure, 409
 * conflicts included, is retried after `retryPeriod`.
 */
export interface LeaseClient<R> {
  get(resource: R, name: string, options: { namespace: string }): ObservableInput<LeaseLike>;
  create(resource: R, object: LeaseLike, options: { namespace: string }): ObservableInput<LeaseLike>;
  update(resource: R, object: LeaseLike, options: { namespace: string }): ObservableInput<LeaseLike>;
}

/** Options of {@link leaderElection}. */
export interface LeaderElectionOptions<R> {
  /** Makes the requests. Required; e.g. a `Client` from `svc/client`. */
  client: LeaseClient<R>;
  /** What `client` addresses the Lease as. Required; e.g. `builtin.leases`. */
  resource: R;
  /** The Lease all candidates share. Required. */
  lease: { namespace: string; name: string };
  /** This candidate, unique among them (e.g. `${hostname}_${uuid}`). Required; not empty. */
  identity: string;
  /** How long a lease is valid after its `renewTime`, in ms; others take it over after this. Default: 15 000. */
  leaseDuration?: number;
  /** How long a leader keeps trying to renew before it stops leading, in ms; < `leaseDuration`. Default: 10 000. */
  renewDeadline?: number;
  /** The wait between attempts to acquire or renew, in ms; < `renewDeadline`. Default: 2 000. */
  retryPeriod?: number;
  /** Whether stopping (or unsubscribing) while leading releases the Lease, so another candidate leads at once. Default: true. */
  release?: boolean;
  /**
   * Ends the election when it emits: campaigning stops, a request in flight is let finish, a
   * leader emits `false` and releases the Lease (unless `release` is false), then the Observable
   * completes — once the release has been answered. This is the way to stop a shared election
   * (`share()`): it does not wait for every subscriber to leave, and its completion can be awaited
   * before the process exits. Default: none (only unsubscribing ends it).
   */
  stop$?: ObservableInput<unknown>;
  /** Clock and timers. Default: `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Random numbers in [0, 1): a candidate waits `retryPeriod · (1 + 0.2 · random())` between attempts. Default: `Math.random`. */
  random?: () => number;
}

/** MicroTime: RFC 3339 in UTC with six fractional digits, as Kubernetes writes `renewTime`. */
const microTime = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z');

const hasCode = (error: unknown, code: number): boolean => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
const isNotFound = (error: unknown): boolean => hasCode(error, 404);

/**
 * Campaigns for a Lease and emits `true` when this identity becomes the leader, `false` when it
 * stops being the leader.
 *
 * Like client-go's `leaderelection.RunOrDie` with a `LeaseLock`, but as a cold Observable: it starts
 * campaigning at subscription and never errors or completes by itself. Every `retryPeriod` it reads
 * the Lease (creating it when absent) and writes it with optimistic concurrency (the
 * `resourceVersion` it read): a candidate takes a Lease that is free (no holder) or expired
 * (`renewTime + leaseDuration < now`, by its own `leaseDuration` and clock); the leader renews its
 * `renewTime`. A leader that has not renewed within `renewDeadline` of its last renewal, or that
 * finds another holder in the Lease, emits `false` — and goes on campaigning (pipe
 * `takeWhile(Boolean, true)` to stop at the first loss). `stop$` ends it: a leader emits `false`,
 * releases the Lease (holder cleared; after any request in flight has been answered, so the
 * release carries the newest version) and the Observable completes once the release is answered
 * — awaitable, whatever the number of subscribers. Unsubscribing while leading also releases the
 * Lease, sent and not awaited (refused as a conflict because a renewal was still in flight, it is
 * sent once more on the Lease read afresh). `release: false` leaves the Lease to expire. Each
 * subscription is a candidate of its own: `share()` one election among several pipelines, and end
 * it with `stop$`: with `share()` the unsubscribe of one pipeline releases nothing while another
 * subscriber stays.
 *
 * ```
 * leaderElection({ identity: 'a', leaseDuration: 15, renewDeadline: 10, retryPeriod: 5 })
 * lease held by 'b', last renewed at 0:
 * result:   20ms t              attempts at 0, 5, 10, 15 find it valid; the one at 20 takes it
 * lease absent, requests fail from 12:
 * result:   t 19ms f            created at 0, renewed at 5 and 10; no renewal by 10 + renewDeadline
 * ```
 *
 * @example
 * import { hostname } from 'node:os';
 * import { interval, lastValueFrom, share, Subject } from 'rxjs';
 * import { Client, builtin } from 'svc/client';
 * import { leaderElection, whileLeader } from 'svc/operators';
 * const client = await Client.fromSvcconfig('admin.svcconfig');
 * const identity = `${hostname()}_${process.pid}`;
 * const lease = { namespace: 'default', name: 'demo' };
 * const stop$ = new Subject<void>();
 * const leader$ = leaderElection({ client, resource: builtin.leases, lease, identity, stop$ }).pipe(share());
 * const ended = lastValueFrom(leader$, { defaultValue: false }); // settles once the Lease is released
 * interval(1000).pipe(whileLeader(leader$)).subscribe((n) => console.log('leading', n));
 * process.once('SIGTERM', async () => {
 *   stop$.next(); // the work stops at `false`, then the Lease is released
 *   await ended;
 *   process.exit(0);
 * });
 *
 * @see whileLeader — runs a pipeline only while `leader$` is true
 */
export function leaderElection<R>(options: LeaderElectionOptions<R>): Observable<boolean> {
  const client = options.client;
  if (typeof client !== 'object' || client === null) throw new TypeError('client must be an object with get, create and update');
  requireFunction('client.get', client.get);
  requireFunction('client.create', client.create);
  requireFunction('client.update', client.update);
  const { namespace, name } = options.lease ?? ({} as { namespace?: unknown; name?: unknown });
  if (typeof namespace !== 'string' || namespace === '' || typeof name !== 'string' || name === '') {
    throw new TypeError('lease must name a namespace and a name');
  }
  const identity = options.identity;
  if (typeof identity !== 'string' || identity === '') throw new TypeError('identity must be a non-empty string');
  const leaseDuration = requirePositive('leaseDuration', options.leaseDuration ?? 15_000, true);
  const renewDeadline = requirePositive('renewDeadline', options.renewDeadline ?? 10_000, true);
  const retryPeriod = requirePositive('retryPeriod', options.retryPeriod ?? 2_000, true);
  if (!(leaseDuration > renewDeadline && renewDeadline > retryPeriod)) {
    throw new RangeError(`need leaseDuration > renewDeadline > retryPeriod, got ${leaseDuration}, ${renewDeadline}, ${retryPeriod}`);
  }
  const resource = options.resource;
  const release = options.release ?? true;
  const scheduler = options.scheduler ?? asyncScheduler;
  const random = options.random === undefined ? Math.random : requireFunction('random', options.random);
  const at = { namespace };
  const leaseDurationSeconds = Math.max(1, Math.ceil(leaseDuration / 1000));

  return new Observable<boolean>((subscriber) => {
    let leading = false;
    /** The Lease as last read or written: the resourceVersion of the next write. */
    let current: LeaseLike | undefined;
    let request: Subscription | null = null;
    let retry: Subscription | null = null;
    let deadline: Subscription | null = null;
    /** Set by stop$: campaigning is over; an answer still to come goes to `afterStop`. */
    let stopping = false;
    let afterStop: (() => void) | undefined;

    const send = (call: () => ObservableInput<LeaseLike>, answered: (lease: LeaseLike) => void, rejected: (error: unknown) => void): void => {
      // Once stopping, an answer only updates what we know of the Lease, and lets the stop go on.
      const resume = (): void => {
        const next = afterStop;
        afterStop = undefined;
        next?.();
      };
      const done = (lease: LeaseLike): void => {
        if (!stopping) return answered(lease);
        current = lease;
        resume();
      };
      const failed = (error: unknown): void => (stopping ? resume() : rejected(error));
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        request = null;
        return true;
      };
      let input: ObservableInput<LeaseLike>;
      try {
        input = call();
      } catch (error) {
        settle();
        failed(error);
        return;
      }
      const sent = from(input).subscribe({
        next(lease) {
          if (settle()) done(lease);
        },
        error(error: unknown) {
          if (settle()) failed(error);
        },
        complete() {
          if (settle()) failed(new Error('the client answered without a Lease'));
        },
      });
      if (!settled) request = sent; // an answer on the spot has already moved on
    };

    const scheduleAttempt = (): void => {
      if (subscriber.closed) return; // unsubscribed by a `true` or `false` just emitted (take, takeWhile)
      const wait = leading ? retryPeriod : retryPeriod * (1 + 0.2 * random());
      retry = scheduler.schedule(attempt, wait);
    };

    const stopLeading = (): void => {
      deadline?.unsubscribe();
      deadline = null;
      if (!leading) return;
      leading = false;
      subscriber.next(false);
    };

    const expire = (): void => {
      // No renewal succeeded within renewDeadline: stop, drop the request in flight, start over.
      deadline = null;
      request?.unsubscribe();
      request = null;
      retry?.unsubscribe();
      stopLeading();
      scheduleAttempt();
    };
    const written = (renewedAt: number) => (lease: LeaseLike): void => {
      current = lease;
      deadline?.unsubscribe();
      deadline = scheduler.schedule(() => {
        // A timer due while the event loop was stalled runs before the I/O that arrived meanwhile
        // and before the other timers due with it: the renewal in flight may have been answered
        // already, unread, or the next attempt be due at this very moment. While the lease is still
        // valid for everyone else, they get one more turn of the loop (a 0 ms timer runs after
        // pending I/O and the timers due now) before the leader steps down.
        if (scheduler.now() < renewedAt + leaseDuration) {
          deadline = scheduler.schedule(expire, 0);
          return;
        }
        expire();
      }, renewedAt + renewDeadline - scheduler.now());
      if (!leading) {
        leading = true;
        subscriber.next(true);
        if (subscriber.closed) return;
      }
      scheduleAttempt();
    };
    const failed = (): void => scheduleAttempt();

    const decide = (lease: LeaseLike): void => {
      current = lease;
      const spec = lease.spec ?? {};
      const now = scheduler.now();
      const holder = spec.holderIdentity ?? '';
      const renewTime = spec.renewTime === undefined ? NaN : Date.parse(spec.renewTime);
      const valid = holder !== '' && !(renewTime + leaseDuration < now);
      if (holder !== identity && valid) {
        stopLeading(); // another holder: whatever we thought, we do not lead
        scheduleAttempt();
        return;
      }
      const mine = holder === identity;
      const next: LeaseLike = {
        ...lease,
        spec: {
          ...spec,
          holderIdentity: identity,
          leaseDurationSeconds,
          acquireTime: mine && spec.acquireTime !== undefined ? spec.acquireTime : microTime(now),
          renewTime: microTime(now),
          leaseTransitions: mine ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? -1) + 1,
        },
      };
      send(() => client.update(resource, next, at), written(now), failed);
    };

    const create = (): void => {
      const now = scheduler.now();
      const lease: LeaseLike = {
        apiVersion: 'coordination.svc.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: { holderIdentity: identity, leaseDurationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
      };
      send(() => client.create(resource, lease, at), written(now), failed);
    };

    function attempt(): void {
      retry = null;
      send(() => client.get(resource, name, at), decide, (error) => (isNotFound(error) ? create() : failed()));
    }

    const releaseOf = (lease: LeaseLike): LeaseLike => {
      const spec = { ...lease.spec };
      delete spec.holderIdentity;
      const now = microTime(scheduler.now());
      return { ...lease, spec: { ...spec, leaseDurationSeconds: 1, acquireTime: now, renewTime: now } };
    };
    /**
     * Writes the Lease with no holder, then calls `done` (once, whatever the answer). A conflict
     * means the Lease moved since `lease` was read (a renewal answered late): it is read again and,
     * if it still names this identity, released at that version.
     */
    const releaseLease = (lease: LeaseLike, done: () => void): void => {
      let settled = false;
      const finish = (): void => {
        if (settled) return;
        settled = true;
        done();
      };
      const call = (request: () => ObservableInput<LeaseLike>, next: (lease: LeaseLike) => void, error: (error: unknown) => void): void => {
        try {
          from(request()).pipe(take(1)).subscribe({ next, error, complete: finish });
        } catch (thrown) {
          error(thrown);
        }
      };
      call(() => client.update(resource, releaseOf(lease), at), finish, (error) => {
        if (!hasCode(error, 409)) return finish();
        call(
          () => client.get(resource, name, at),
          (fresh) => (fresh.spec?.holderIdentity === identity ? call(() => client.update(resource, releaseOf(fresh), at), finish, finish) : finish()),
          finish,
        );
      });
    };

    const stop = (): void => {
      if (stopping || subscriber.closed) return;
      stopping = true;
      retry?.unsubscribe();
      retry = null;
      deadline?.unsubscribe();
      deadline = null;
      if (leading) {
        leading = false;
        subscriber.next(false);
      }
      // The Lease as the last answer left it: a renewal (or an acquisition) in flight is awaited,
      // so that the release carries the version it wrote.
      const settle = (): void => {
        const mine = current !== undefined && current.spec?.holderIdentity === identity;
        if (release && mine) releaseLease(current!, () => subscriber.complete());
        else subscriber.complete();
      };
      if (request) afterStop = settle;
      else settle();
    };

    const stopping$ = options.stop$ === undefined ? undefined : from(options.stop$).pipe(take(1)).subscribe(stop);
    if (!stopping) attempt();
    return () => {
      stopping$?.unsubscribe();
      // A stop under way finishes its release even when nobody listens any more.
      if (stopping) return;
      request?.unsubscribe();
      retry?.unsubscribe();
      deadline?.unsubscribe();
      if (!leading || !release || current === undefined) return;
      // Fire and forget; a conflict (a renewal answered after `current`) is retried once on the Lease read afresh.
      releaseLease(current, () => undefined);
    };
  });
}
