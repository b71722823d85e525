// A fake Lease store for the leaderElection marble tests: one Lease with optimistic concurrency,
// answering on the spot (synchronously) unless it is down. It reads the clock of the scheduler the
// test runs on, so "down from frame 12" means virtual time.
import { defer, of, throwError, type Observable, type SchedulerLike } from 'rxjs';
import type { LeaseClient, LeaseLike } from '../../operators/leaderElection.js';

const statusError = (code: number) => Object.assign(new Error(`status ${code}`), { code });

export interface FakeLeases {
  readonly client: LeaseClient<'leases'>;
  /** The stored Lease, undefined when absent. */
  lease: LeaseLike | undefined;
  /** Requests fail with a 503 while this returns true. */
  down: (now: number) => boolean;
  /** Writes (create and update) that succeeded. */
  writes: number;
  /** Writes the Lease as another holder would, taking a new resourceVersion. */
  put(spec: LeaseLike['spec']): void;
}

export function fakeLeases(scheduler: SchedulerLike): FakeLeases {
  let version = 0;
  const store: FakeLeases = {
    lease: undefined,
    down: () => false,
    writes: 0,
    put(spec) {
      store.lease = { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'ns', resourceVersion: String(++version) }, spec };
    },
    client: {
      get: () => answer(() => store.lease ?? fail(404)),
      create: (_res, object) =>
        answer(() => {
          if (store.lease !== undefined) return fail(409);
          return write(object);
        }),
      update: (_res, object) =>
        answer(() => {
          if (store.lease === undefined) return fail(404);
          if (object.metadata.resourceVersion !== store.lease.metadata.resourceVersion) return fail(409);
          return write(object);
        }),
    },
  };
  const write = (object: LeaseLike): LeaseLike => {
    store.writes += 1;
    store.lease = structuredClone({ ...object, metadata: { ...object.metadata, resourceVersion: String(++version) } });
    return structuredClone(store.lease);
  };
  const fail = (code: number): never => {
    throw statusError(code);
  };
  const answer = (op: () => LeaseLike): Observable<LeaseLike> =>
    defer(() => {
      if (store.down(scheduler.now())) return throwError(() => statusError(503));
      try {
        return of(structuredClone(op()));
      } catch (error) {
        return throwError(() => error);
      }
    });
  return store;
}

/** MicroTime of a virtual frame. */
export const at = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z');
