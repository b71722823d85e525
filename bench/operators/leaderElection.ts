// leaderElection and whileLeader: the cost of one election (get, create, emit true, release) on a
// synchronous in-memory Lease store against the same calls by hand, and whileLeader's per-item
// pass-through cost while leading against a plain subscription.
import { BehaviorSubject, map, of, throwError } from 'rxjs';
import { operatorBenchmark, type Benchmark } from '../../src/bench/index.js';
import { leaderElection, whileLeader, type LeaseClient, type LeaseLike } from '../../operators/index.js';
import { atOnce, sink } from './support.js';

/** One Lease in memory, answering synchronously; `reset()` empties it. */
function memoryLeases() {
  let stored: LeaseLike | undefined;
  let version = 0;
  const notFound = Object.assign(new Error('not found'), { code: 404 });
  const write = (lease: LeaseLike): LeaseLike => (stored = { ...lease, metadata: { ...lease.metadata, resourceVersion: String(++version) } });
  const client: LeaseClient<'leases'> = {
    get: () => (stored === undefined ? throwError(() => notFound) : of(stored)),
    create: (_res, lease) => of(write(lease)),
    update: (_res, lease) => of(write(lease)),
  };
  return { client, write, get: () => stored, reset: () => (stored = undefined) };
}

const N = 1_000;
const M = 10_000;
const store = memoryLeases();
const election = leaderElection({ client: store.client, resource: 'leases', lease: { namespace: 'default', name: 'bench' }, identity: 'a' });

export const benches: Benchmark[] = [
  operatorBenchmark({
    name: 'leaderElection',
    input: atOnce('elect and release, in-memory Lease', Array.from({ length: N }, (_, i) => i)),
    // One election per item: subscribing elects, unsubscribing releases.
    operator: () =>
      map(() => {
        store.reset();
        election.subscribe(sink).unsubscribe();
      }),
    baseline: {
      name: 'the calls by hand',
      loop: (items) => {
        const now = () => new Date().toISOString();
        for (let i = 0; i < items.length; i++) {
          store.reset();
          if (store.get() !== undefined) throw new Error('unexpected Lease');
          const spec = { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: now(), renewTime: now(), leaseTransitions: 0 };
          const lease = store.write({ metadata: { name: 'bench', namespace: 'default' }, spec });
          sink(true);
          sink(store.write({ ...lease, spec: { leaseDurationSeconds: 1, acquireTime: now(), renewTime: now(), leaseTransitions: 0 } }));
        }
      },
    },
  }),
  operatorBenchmark({
    name: 'whileLeader',
    input: atOnce('pass-through while leading', Array.from({ length: M }, (_, i) => i)),
    operator: () => whileLeader<number>(new BehaviorSubject(true)),
  }),
];
