import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type KubeObject, type OwnerReference } from '../../src/api/index.js';
import { deletionTimestampOf, sameOwnerReferences, type ApiResource, type InformerEvent } from '../../src/client/index.js';
import type { OwnershipGraph } from './graph.js';
import { identityOf, ownerIdentity, ownerReferences, type Identity } from './identity.js';

/**
 * Being deleted with the orphan or foreground finalizer: the collector's work is pending. Asked
 * of every update; a cached version without a deletionTimestamp answers from its record, decoding
 * no metadata (a node Lease's renewal, a pod's status write).
 */
const waitsForCollector = (object: KubeObject) =>
  deletionTimestampOf(object) !== undefined && (object.metadata.finalizers ?? []).some((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);

const needsCollecting = (object: KubeObject) => ownerReferences(object).length > 0 || waitsForCollector(object);

const sameReference = (a: OwnerReference, b: OwnerReference) =>
  a.uid === b.uid && a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.controller === b.controller && a.blockOwnerDeletion === b.blockOwnerDeletion;

/** Whether an update left the object's owner references as they were (in order: a reorder counts as a change, which only costs a look). */
function sameReferences(old: KubeObject, object: KubeObject): boolean {
  const before = ownerReferences(old);
  const after = ownerReferences(object);
  return before.length === after.length && before.every((ref, i) => sameReference(ref, after[i]!));
}

/**
 * The objects a change of one cached object asks the collector to look at:
 * - the object itself, when it has owners or waits for the collector (orphan, foreground);
 * - on a delete, its owners (a foreground owner may be waiting for it) and its dependents (their
 *   owner may be gone);
 * - on an update, the object itself only when its owner references changed or it waits for the
 *   collector (as upstream's graph builder: an update that leaves the references alone — a Node
 *   Lease's renewal, a pod's status — has nothing for the collector, which looked when the object
 *   was added and looks again when an owner goes), and the owners it no longer references or no
 *   longer blocks (same reason).
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
      // The same references' bytes (most updates: a Lease renewal, a status write): nothing
      // released, nothing changed, so only a pending orphan or foreground deletion asks for a look.
      if (sameOwnerReferences(event.old, object)) return waitsForCollector(object) ? [identityOf(object, type)] : [];
      // An owner this object no longer blocks: no longer referenced, or no longer with blockOwnerDeletion.
      const blocks = new Map(ownerReferences(object).map((ref) => [ref.uid, ref.blockOwnerDeletion === true]));
      const released = new Set(ownerReferences(event.old).filter((ref) => !blocks.has(ref.uid) || (ref.blockOwnerDeletion === true && !blocks.get(ref.uid))).map((ref) => ref.uid));
      const dropped = owners(event.old).filter((owner) => released.has(owner.uid));
      const look = waitsForCollector(object) || (ownerReferences(object).length > 0 && !sameReferences(event.old, object));
      return look ? [identityOf(object, type), ...dropped] : dropped;
    }
    case 'deleted':
      return [...owners(object), ...graph.dependents(object.metadata.uid ?? '').map((d) => identityOf(d.object, d.type))];
  }
}
