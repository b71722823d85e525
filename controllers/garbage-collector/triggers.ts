import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type KubeObject } from '../../src/api/index.js';
import type { ApiResource, InformerEvent } from '../../src/client/index.js';
import type { OwnershipGraph } from './graph.js';
import { identityOf, ownerIdentity, ownerReferences, type Identity } from './identity.js';

const needsCollecting = (object: KubeObject) =>
  ownerReferences(object).length > 0 ||
  (object.metadata.deletionTimestamp !== undefined && (object.metadata.finalizers ?? []).some((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER));

/**
 * The objects a change of one cached object asks the collector to look at:
 * - the object itself, when it has owners or waits for the collector (orphan, foreground);
 * - on a delete, its owners (a foreground owner may be waiting for it) and its dependents (their
 *   owner may be gone);
 * - on an update, the owners it no longer references or no longer blocks (same reason).
 */
export function triggeredBy(event: InformerEvent<KubeObject>, type: ApiResource, graph: OwnershipGraph): Identity[] {
  const object = event.object;
  const owners = (o: KubeObject) =>
    ownerReferences(o).map((ref) => ownerIdentity(ref, o.metadata.namespace ?? '', graph.typeOf(ref.apiVersion, ref.kind)?.namespaced ?? true));
  switch (event.type) {
    case 'added':
    case 'resync':
      return needsCollecting(object) ? [identityOf(object, type)] : [];
    case 'updated': {
      // An owner this object no longer blocks: no longer referenced, or no longer with blockOwnerDeletion.
      const blocks = new Map(ownerReferences(object).map((ref) => [ref.uid, ref.blockOwnerDeletion === true]));
      const released = new Set(ownerReferences(event.old).filter((ref) => !blocks.has(ref.uid) || (ref.blockOwnerDeletion === true && !blocks.get(ref.uid))).map((ref) => ref.uid));
      const dropped = owners(event.old).filter((owner) => released.has(owner.uid));
      return needsCollecting(object) ? [identityOf(object, type), ...dropped] : dropped;
    }
    case 'deleted':
      return [...owners(object), ...graph.dependents(object.metadata.uid ?? '').map((d) => identityOf(d.object, d.type))];
  }
}
