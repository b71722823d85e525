// leaderElection against a real svc-apiserver in-process: Leases (coordination.svc.io/v1) with
// short durations (600/400/100 ms). The tests assert outcomes, never timing.
import { Observable, tap, type Subscription } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtin, type Client } from '../../src/client/index.js';
import { leaderElection, whileLeader } from '../../operators/index.js';
import { startClientTestServer, until, type ClientTestServer } from '../client/support.js';

const lease = { namespace: 'default', name: 'controller' };
const durations = { leaseDuration: 600, renewDeadline: 400, retryPeriod: 100 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An elector with its own client, recording what it emitted. */
function candidate(client: Client, identity: string, release = true) {
  const seen: boolean[] = [];
  const leader$ = leaderElection({ client, resource: builtin.leases, lease, identity, release, ...durations });
  const subscription: Subscription = leader$.subscribe((leads) => seen.push(leads));
  return { identity, seen, subscription, leads: () => seen.at(-1) === true };
}

/** A pipeline that counts its subscriptions and records when it is unsubscribed. */
function pipeline() {
  const state = { running: false, starts: 0, stops: 0 };
  const work$ = new Observable<never>(() => {
    state.running = true;
    state.starts += 1;
    return () => {
      state.running = false;
      state.stops += 1;
    };
  });
  return { state, work$ };
}

describe('leaderElection on svc-apiserver', () => {
  let t: ClientTestServer;
  const subscriptions: Subscription[] = [];
  beforeEach(async () => {
    t = await startClientTestServer();
  });
  afterEach(async () => {
    for (const s of subscriptions.splice(0)) s.unsubscribe();
    await t.close();
  });

  it('lets exactly one of two candidates lead, and the other takes over when the leader dies', async () => {
    const a = candidate(t.newClient(), 'a', false);
    const b = candidate(t.newClient(), 'b', false);
    subscriptions.push(a.subscription, b.subscription);
    await until(() => a.leads() || b.leads(), 'a leader');
    // A dozen renewals. A loaded machine may make the leader miss its 400 ms renew deadline and
    // step down (the other may then lead): the test does not count on the first leader keeping the
    // Lease, but they must never lead at once.
    for (const end = Date.now() + durations.leaseDuration * 2; Date.now() < end; await sleep(10)) {
      expect(a.leads() && b.leads(), 'both lead').toBe(false);
    }
    await until(() => a.leads() !== b.leads(), 'one leader');
    const [leader, other] = a.leads() ? [a, b] : [b, a];
    const handedOver = a.seen.length + b.seen.length > 1;
    if (!handedOver) expect(other.seen).toEqual([]);

    leader.subscription.unsubscribe(); // a dead process: no release
    await until(() => other.leads(), 'the other candidate to lead');
    const stored = await t.client.get(builtin.leases, lease.name, { namespace: lease.namespace });
    expect(stored.spec).toMatchObject({ holderIdentity: other.identity, leaseDurationSeconds: 1 });
    expect(stored.spec?.leaseTransitions).toBeGreaterThanOrEqual(1);
  });

  it('releases the lease when the leader unsubscribes, so the other candidate leads at once', async () => {
    const a = candidate(t.newClient(), 'a');
    subscriptions.push(a.subscription);
    await until(() => a.leads(), 'a to lead');
    a.subscription.unsubscribe(); // the release is sent, not awaited
    let holder: string | undefined = 'a';
    for (let i = 0; i < 100 && holder !== undefined; i++) {
      holder = (await t.client.get(builtin.leases, lease.name, { namespace: lease.namespace })).spec?.holderIdentity;
      if (holder !== undefined) await sleep(10);
    }
    expect(holder).toBeUndefined();
    const b = candidate(t.newClient(), 'b');
    subscriptions.push(b.subscription);
    await until(() => b.leads(), 'b to lead');
  });

  it('stops leading and unsubscribes its pipeline when another holder overwrites the lease', async () => {
    const client = t.newClient();
    const leader$ = leaderElection({ client, resource: builtin.leases, lease, identity: 'a', ...durations });
    const seen: boolean[] = [];
    const { state, work$ } = pipeline();
    subscriptions.push(work$.pipe(whileLeader(leader$.pipe(tap((leads) => seen.push(leads))))).subscribe());
    await until(() => seen.includes(true) && state.running, 'a to lead and run its pipeline');

    const stored = await t.client.get(builtin.leases, lease.name, { namespace: lease.namespace });
    const renewTime = new Date(Date.now() + 60_000).toISOString().replace(/Z$/, '000Z');
    await t.client.update(builtin.leases, { ...stored, spec: { ...stored.spec, holderIdentity: 'intruder', renewTime } });

    await until(() => seen.at(-1) === false && !state.running, 'a to stop leading');
    expect(state).toEqual({ running: false, starts: 1, stops: 1 });
  });

  it('stops leading and unsubscribes its pipeline when renewals fail because the server is gone', async () => {
    const seen: boolean[] = [];
    const leader$ = leaderElection({ client: t.newClient(), resource: builtin.leases, lease, identity: 'a', ...durations });
    const { state, work$ } = pipeline();
    subscriptions.push(work$.pipe(whileLeader(leader$.pipe(tap((leads) => seen.push(leads))))).subscribe());
    await until(() => state.running && seen.includes(true), 'a to lead and run its pipeline');

    await t.s.close();
    await until(() => !state.running && seen.at(-1) === false, 'a to stop leading');
    expect(state).toEqual({ running: false, starts: 1, stops: 1 });
  });
});
