// leaderElection and whileLeader: the cost of one election (get, create, emit true, release) on a
// synchronous in-memory Lease store against the same calls by hand, and whileLeader's per-item
// pass-through cost while leading against a plain subscription.
import { BehaviorSubject, of, throwError } from 'rxjs';
import { leaderElection, whileLeader, type LeaseClient, type LeaseLike } from '../../operators/index.js';
import { fromArray, perItem, sink, type PerItemRow } from './support.js';

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

export async function run(): Promise<PerItemRow[]> {
  const N = 1_000;
  const store = memoryLeases();
  const election = leaderElection({ client: store.client, resource: 'leases', lease: { namespace: 'default', name: 'bench' }, identity: 'a' });
  const elections = await perItem(
    'leaderElection',
    'elect and release, in-memory Lease',
    N,
    () => {
      for (let i = 0; i < N; i++) {
        store.reset();
        election.subscribe(sink).unsubscribe();
      }
    },
    () => {
      const now = () => new Date().toISOString();
      for (let i = 0; i < N; i++) {
        store.reset();
        if (store.get() !== undefined) throw new Error('unexpected Lease');
        const spec = { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: now(), renewTime: now(), leaseTransitions: 0 };
        const lease = store.write({ metadata: { name: 'bench', namespace: 'default' }, spec });
        sink(true);
        sink(store.write({ ...lease, spec: { leaseDurationSeconds: 1, acquireTime: now(), renewTime: now(), leaseTransitions: 0 } }));
      }
    },
  );

  const M = 10_000;
  const items = Array.from({ length: M }, (_, i) => i);
  const leading = new BehaviorSubject(true);
  const passThrough = await perItem(
    'whileLeader',
    'pass-through while leading',
    M,
    () => fromArray(items).pipe(whileLeader(leading)).subscribe(sink),
    () => fromArray(items).subscribe(sink),
  );
  return [elections, passThrough];
}
