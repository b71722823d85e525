import { asyncScheduler, catchError, defer, EMPTY, exhaustMap, retry, tap, timer, type Observable, type SchedulerLike } from 'rxjs';
import { isStatusError, microTime, notFound, type Lease, type Node } from '../../api/index.js';
import { builtin, type Client } from '../../client/index.js';

/** The namespace of node heartbeat leases. */
export const NODE_LEASE_NAMESPACE = 'svc-node-lease';
/** How long a lease holds without renewal: four renewals, as the kubelet's. */
export const NODE_LEASE_DURATION_SECONDS = 40;
/** The kubelet's renewal interval: a quarter of the duration. */
export const NODE_LEASE_RENEW_INTERVAL_MS = 10_000;


export interface NodeLeaseOptions {
  readonly client: Client;
  readonly node: Node;
  readonly renewIntervalMs?: number;
  readonly scheduler?: SchedulerLike;
  readonly onError?: (error: unknown) => void;
  /**
   * The Lease this loop wrote is gone and so is its Node (or the Node has another uid): the
   * garbage collector removed the Lease with its owner. Told before the renewal fails, so the agent
   * registers again without waiting for its next status write (minutes apart when nothing changes).
   */
  readonly onNodeGone?: () => void;
}

const ownerOf = (node: Node) => ({ apiVersion: 'v1', kind: 'Node', name: node.metadata.name!, uid: node.metadata.uid! });

/**
 * Renews the node's Lease every `renewIntervalMs` (a renewal still under way skips a tick). The
 * first renewal creates the Lease when it is missing, and the namespace when the server lacks it.
 * Each renewal writes over the last Lease it wrote (its resourceVersion); a conflict or a missing
 * Lease makes it read again. A failed renewal is retried with back-off (200 ms doubling, four
 * times) and then left to the next tick. Emits each Lease written.
 */
export function nodeLeaseRenewals(options: NodeLeaseOptions): Observable<Lease> {
  const { client, node } = options;
  const scheduler = options.scheduler ?? asyncScheduler;
  const name = node.metadata.name!;
  let last: Lease | undefined;

  const withRenewal = (lease: Lease): Lease => {
    const owners = lease.metadata.ownerReferences ?? [];
    const owned = owners.some((o) => o.kind === 'Node' && o.uid === node.metadata.uid);
    return {
      ...lease,
      metadata: { ...lease.metadata, ownerReferences: owned ? owners : [...owners.filter((o) => o.kind !== 'Node'), ownerOf(node)] },
      spec: { ...lease.spec, holderIdentity: name, leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS, renewTime: microTime(scheduler.now()) },
    };
  };

  const create = async (): Promise<Lease> => {
    const lease: Lease = withRenewal({ apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name, namespace: NODE_LEASE_NAMESPACE } });
    try {
      return await client.create(builtin.leases, lease);
    } catch (error) {
      // A server without the namespace (one that is not svc's own, or a deleted namespace): make it.
      if (!isStatusError(error, 'NotFound')) throw error;
      try {
        await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NODE_LEASE_NAMESPACE } });
      } catch (nsError) {
        if (!isStatusError(nsError, 'AlreadyExists')) throw nsError;
      }
      return await client.create(builtin.leases, lease);
    }
  };

  /** After the Lease was found missing: is its Node still there? (Throws `missing` when not.) */
  const checkNode = async (missing: unknown): Promise<void> => {
    let uid: string | undefined;
    try {
      uid = (await client.get(builtin.nodes, name)).metadata.uid;
    } catch (error) {
      if (!isStatusError(error, 'NotFound')) throw error;
    }
    if (uid === node.metadata.uid) return;
    options.onNodeGone?.();
    throw missing;
  };

  const renew = async (): Promise<Lease> => {
    if (last !== undefined) {
      const before = last;
      let renewed: Lease | undefined;
      try {
        renewed = await client.update(builtin.leases, withRenewal(before));
      } catch (error) {
        if (isStatusError(error, 'NotFound')) await checkNode(error);
        else if (!isStatusError(error, 'Conflict')) throw error;
      }
      // A Lease may be created by an update (as Kubernetes' are): a new uid says the one this loop wrote was deleted.
      if (renewed && renewed.metadata.uid !== before.metadata.uid) await checkNode(notFound({ group: '', resource: 'nodes' }, name));
      if (renewed) return renewed;
    }
    let current: Lease;
    try {
      current = await client.get(builtin.leases, name, { namespace: NODE_LEASE_NAMESPACE });
    } catch (error) {
      if (!isStatusError(error, 'NotFound')) throw error;
      return await create();
    }
    return await client.update(builtin.leases, withRenewal(current));
  };

  return timer(0, options.renewIntervalMs ?? NODE_LEASE_RENEW_INTERVAL_MS, scheduler).pipe(
    exhaustMap(() =>
      defer(renew).pipe(
        retry({ count: 4, delay: (_error, attempt) => timer(200 * 2 ** (attempt - 1), scheduler) }),
        tap((lease) => (last = lease)),
        catchError((error: unknown) => {
          last = undefined;
          options.onError?.(error);
          return EMPTY;
        }),
      ),
    ),
  );
}
