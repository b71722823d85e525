import { asyncScheduler, delay, from, share, takeWhile } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { leaderElection } from '../../operators/index.js';
import type { LeaderElectionOptions } from '../../operators/leaderElection.js';
import { at, fakeLeases, type FakeLeases } from './leaseStore.js';
import { testScheduler } from './marbles.js';

const values = { t: true, f: false };
// Virtual time: a lease is valid 15 frames, a leader gives up 10 frames after its last renewal,
// attempts are 5 frames apart (random() = 0: no jitter).
const elector = (store: FakeLeases, identity: string, extra: Partial<LeaderElectionOptions<'leases'>> = {}) =>
  leaderElection({
    client: store.client,
    resource: 'leases',
    lease: { namespace: 'ns', name: 'l' },
    identity,
    leaseDuration: 15,
    renewDeadline: 10,
    retryPeriod: 5,
    scheduler: asyncScheduler,
    random: () => 0,
    ...extra,
  });

describe('leaderElection', () => {
  it('creates an absent lease, leads at once and renews every retryPeriod', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const store = fakeLeases(asyncScheduler);
      let seen: unknown;
      cold('21ms x').subscribe(() => (seen = { ...store.lease?.spec, writes: store.writes }));
      expectObservable(elector(store, 'a'), '^ 21ms !').toBe('t', values);
      flush();
      // Created at 0, renewed at 5, 10, 15, 20.
      expect(seen).toEqual({ holderIdentity: 'a', leaseDurationSeconds: 1, acquireTime: at(0), renewTime: at(20), leaseTransitions: 0, writes: 5 });
    });
  });

  it('lets exactly one of two candidates lead', () => {
    testScheduler().run(({ expectObservable }) => {
      const store = fakeLeases(asyncScheduler);
      expectObservable(elector(store, 'a'), '^ 50ms !').toBe('t', values);
      expectObservable(elector(store, 'b'), '^ 50ms !').toBe('-', values);
    });
  });

  it('takes over a lease whose holder stopped renewing once renewTime + leaseDuration has passed', () => {
    testScheduler().run(({ expectObservable, flush }) => {
      const store = fakeLeases(asyncScheduler);
      store.put({ holderIdentity: 'dead', leaseDurationSeconds: 1, acquireTime: at(0), renewTime: at(0), leaseTransitions: 3 });
      // Attempts at 0, 5, 10, 15 find it valid (0 + 15 is not < 15); the one at 20 takes it.
      expectObservable(elector(store, 'a', { release: false }), '^ 30ms !').toBe('20ms t', values);
      flush();
      expect(store.lease?.spec).toMatchObject({ holderIdentity: 'a', acquireTime: at(20), leaseTransitions: 4 });
    });
  });

  it('takes a released lease (no holder) at once', () => {
    testScheduler().run(({ expectObservable }) => {
      const store = fakeLeases(asyncScheduler);
      store.put({ leaseDurationSeconds: 1, renewTime: at(0) });
      expectObservable(elector(store, 'a'), '^ 9ms !').toBe('t', values);
    });
  });

  it('stops leading renewDeadline after its last renewal when renewals fail, then campaigns again', () => {
    testScheduler().run(({ expectObservable }) => {
      const store = fakeLeases(asyncScheduler);
      store.down = (now) => now >= 12 && now < 30;
      // Renewed at 5 and 10; 15 and 20 fail; the deadline is 10 + 10; attempts at 25 fail, 30 wins.
      expectObservable(elector(store, 'a'), '^ 40ms !').toBe('t 19ms f 9ms t', values);
    });
  });

  it('stops leading at once when it finds another holder in the lease', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const store = fakeLeases(asyncScheduler);
      cold('12ms x').subscribe(() => store.put({ holderIdentity: 'b', leaseDurationSeconds: 1, renewTime: at(12) }));
      expectObservable(elector(store, 'a'), '^ 20ms !').toBe('t 14ms f', values);
    });
  });

  it('stops leading at renewDeadline while a renewal hangs', () => {
    testScheduler().run(({ expectObservable }) => {
      const store = fakeLeases(asyncScheduler);
      const client = { ...store.client, update: () => new Promise<never>(() => undefined) }; // renewals never answer
      expectObservable(elector(store, 'a', { client }), '^ 15ms !').toBe('t 9ms f', values);
    });
  });

  it('keeps leading when the renewal answer is due with the deadline (a stalled event loop runs the timer first)', () => {
    testScheduler().run(({ expectObservable, flush }) => {
      const store = fakeLeases(asyncScheduler);
      // The renewal sent at 5 is written at once but its answer is read only at 10, the deadline
      // of the creation at 0, and the deadline timer was set first: it runs first.
      let updates = 0;
      const client = { ...store.client, update: (...args: Parameters<typeof store.client.update>) => (++updates === 1 ? from(store.client.update(...args)).pipe(delay(5)) : store.client.update(...args)) };
      expectObservable(elector(store, 'a', { client }), '^ 30ms !').toBe('t', values);
      flush();
      expect(store.lease?.spec?.leaseTransitions).toBe(0); // never lost it (released at the end)
    });
  });

  it('still stops leading at renewDeadline when that answer comes later', () => {
    testScheduler().run(({ expectObservable }) => {
      const store = fakeLeases(asyncScheduler);
      let updates = 0;
      const client = { ...store.client, update: (...args: Parameters<typeof store.client.update>) => (++updates === 1 ? from(store.client.update(...args)).pipe(delay(6)) : store.client.update(...args)) };
      // Deadline at 10: the answer due at 11 is not waited for; the leader comes back at 15.
      expectObservable(elector(store, 'a', { client }), '^ 30ms !').toBe('t 9ms f 4ms t', values);
    });
  });

  it('releases the lease when unsubscribed while leading, so another candidate leads at once', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const store = fakeLeases(asyncScheduler);
      let released: unknown;
      cold('7ms x').subscribe(() => (released = store.lease?.spec));
      expectObservable(elector(store, 'a'), '^ 5ms !').toBe('t', values); // unsubscribed at 6
      expectObservable(elector(store, 'b', { release: false }), '8ms ^ 20ms !').toBe('8ms t', values);
      flush();
      expect(released).toEqual({ leaseDurationSeconds: 1, acquireTime: at(6), renewTime: at(6), leaseTransitions: 0 });
      expect(store.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    });
  });

  it('releases the lease even when a renewal is still unanswered at unsubscribe (the release then retries on the fresh version)', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const store = fakeLeases(asyncScheduler);
      // Writes reach the store at once; their answers arrive 2 frames later.
      const client: typeof store.client = { ...store.client, update: (resource, object, ns) => from(store.client.update(resource, object, ns)).pipe(delay(2)) };
      let spec: unknown;
      cold('12ms x').subscribe(() => (spec = store.lease?.spec));
      // Renewed at 5 (answered at 7), unsubscribed at 6: the release carries the version before
      // that renewal, is refused as a conflict, and is sent again on the Lease read afresh.
      expectObservable(elector(store, 'a', { client }), '^ 5ms !').toBe('t', values);
      flush();
      expect(spec).toBeDefined();
      expect(spec).not.toHaveProperty('holderIdentity');
    });
  });

  it('stop$ releases a shared election however many subscribers it has, emits false and completes (issue #21)', () => {
    testScheduler().run(({ hot, expectObservable, flush }) => {
      const store = fakeLeases(asyncScheduler);
      const stop$ = hot('7ms s');
      const leader$ = elector(store, 'a', { stop$ }).pipe(share());
      // Two subscribers (a pipeline and, say, a logger): neither leaves before the stop. The second
      // joins after the first has been told `true` (the fake store answers on the spot).
      // Bounded subscriptions (a run that never ends would never let the virtual clock stop).
      expectObservable(leader$, '^ 30ms !').toBe('t 6ms (f|)', values);
      expectObservable(leader$, '^ 30ms !').toBe('7ms (f|)', values);
      // The other candidate finds the Lease released at its first attempt after the stop (renewed
      // at 5, it would otherwise be valid until 20).
      expectObservable(elector(store, 'b', { release: false }), '8ms ^ 20ms !').toBe('8ms t', values);
      flush();
      expect(store.lease?.spec).toMatchObject({ holderIdentity: 'b', acquireTime: at(8), leaseTransitions: 1 });
    });
  });

  it('stop$ waits for a renewal in flight, then releases that version: no conflict, and completion comes with the answer', () => {
    testScheduler().run(({ hot, expectObservable, flush }) => {
      const store = fakeLeases(asyncScheduler);
      const gets: number[] = [];
      // Writes reach the store at once; their answers arrive 2 frames later.
      const client: typeof store.client = {
        ...store.client,
        get: (resource, name, ns) => (gets.push(asyncScheduler.now()), store.client.get(resource, name, ns)),
        update: (resource, object, ns) => from(store.client.update(resource, object, ns)).pipe(delay(2)),
      };
      // Renewal sent at 5 (answered at 7), stop at 6: false at 6, the release is sent at 7 on the
      // renewed version and answered at 9, when the election completes.
      expectObservable(elector(store, 'a', { client, stop$: hot('6ms s') }), '^ 30ms !').toBe('t 5ms f 2ms |', values);
      flush();
      expect(store.lease?.spec).not.toHaveProperty('holderIdentity');
      expect(store.writes).toBe(3); // create, renewal, release
      expect(gets).toEqual([0, 5]); // no read again after a conflict
    });
  });

  it('stop$ while not leading completes at once and writes nothing', () => {
    testScheduler().run(({ hot, expectObservable, flush }) => {
      const store = fakeLeases(asyncScheduler);
      store.put({ holderIdentity: 'b', leaseDurationSeconds: 1, renewTime: at(100) });
      expectObservable(elector(store, 'a', { stop$: hot('3ms s') }), '^ 30ms !').toBe('3ms |', values);
      flush();
      expect(store.writes).toBe(0);
    });
  });

  it('keeps the lease when unsubscribed with release: false (a dead process), until it expires', () => {
    testScheduler().run(({ expectObservable }) => {
      const store = fakeLeases(asyncScheduler);
      expectObservable(elector(store, 'a', { release: false }), '^ 7ms !').toBe('t', values);
      // a renewed at 5: valid until 20; b tries at 8, 13, 18 and takes it at 23.
      expectObservable(elector(store, 'b'), '8ms ^ 20ms !').toBe('23ms t', values);
    });
  });

  it('writes nothing when unsubscribed while not leading', () => {
    testScheduler().run(({ expectObservable, flush }) => {
      const store = fakeLeases(asyncScheduler);
      store.put({ holderIdentity: 'b', leaseDurationSeconds: 1, renewTime: at(100) });
      expectObservable(elector(store, 'a'), '^ 20ms !').toBe('-', values);
      flush();
      expect(store.writes).toBe(0);
      expect(store.lease?.spec?.holderIdentity).toBe('b');
    });
  });

  it('stops campaigning when unsubscribed from within its own emission (takeWhile)', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const store = fakeLeases(asyncScheduler);
      cold('12ms x').subscribe(() => store.put({ holderIdentity: 'b', leaseDurationSeconds: 1, renewTime: at(12) }));
      expectObservable(elector(store, 'a').pipe(takeWhile(Boolean, true))).toBe('t 14ms (f|)', values);
      flush();
      expect(store.lease?.spec?.holderIdentity).toBe('b'); // and no timer left: run() returned
    });
  });

  it('retries with jitter while it is not leading', () => {
    testScheduler().run(({ expectObservable }) => {
      const store = fakeLeases(asyncScheduler);
      store.down = (now) => now < 1;
      // The failed attempt at 0 waits 5 · (1 + 0.2 · 0.5) = 5.5 frames.
      expectObservable(elector(store, 'a', { random: () => 0.5 }), '^ 9ms !').toBe('5.5ms t', values);
    });
  });

  it('rejects bad options when created', () => {
    const store = fakeLeases(asyncScheduler);
    const base = { client: store.client, resource: 'leases' as const, lease: { namespace: 'ns', name: 'l' }, identity: 'a' };
    expect(() => leaderElection(base)).not.toThrow();
    expect(() => leaderElection({ ...base, identity: '' })).toThrow(TypeError);
    expect(() => leaderElection({ ...base, lease: { namespace: '', name: 'l' } })).toThrow(TypeError);
    expect(() => leaderElection({ ...base, client: {} as typeof base.client })).toThrow(TypeError);
    expect(() => leaderElection({ ...base, leaseDuration: 0 })).toThrow(RangeError);
    expect(() => leaderElection({ ...base, renewDeadline: 20_000 })).toThrow(RangeError);
    expect(() => leaderElection({ ...base, retryPeriod: 10_000 })).toThrow(RangeError);
  });
});
