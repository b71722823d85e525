import { isStatusError, FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type KubeObject, type OwnerReference } from '../../src/api/index.js';
import type { ApiResource, Client } from '../../src/client/index.js';
import { identityOf, ownerIdentity, ownerReferences, type Identity } from './identity.js';
import type { OwnershipGraph } from './graph.js';

export interface CollectDeps {
  readonly client: Client;
  readonly graph: OwnershipGraph;
  /** Asks for another look at an object (its key goes through the work queue). */
  readonly enqueue: (id: Identity) => void;
}

/** An owner as a dependent sees it. */
type OwnerState = 'solid' | 'dangling' | 'waiting';

const has = (object: KubeObject, finalizer: string) => (object.metadata.finalizers ?? []).includes(finalizer);

/**
 * One look at one object, as Kubernetes' garbage collector takes it:
 * - gone from the caches: its dependents are looked at (their owner may be dangling now);
 * - being deleted with `orphan`: its dependents lose their references to it, then the finalizer goes;
 * - being deleted with `foregroundDeletion`: its dependents are deleted, and the finalizer goes
 *   once none that blocks owner deletion is left;
 * - with owners: deleted when none of them is left (dangling) or all wait for their dependents.
 */
export async function collect(deps: CollectDeps, id: Identity): Promise<void> {
  const type = deps.graph.typeOf(id.apiVersion, id.kind);
  // A kind not served (yet): retried with back-off; rediscovery may find it.
  if (!type) throw new Error(`no served type for ${id.apiVersion} ${id.kind}`);
  const object = deps.graph.get(type, id);
  if (!object) {
    for (const dependent of deps.graph.dependents(id.uid)) deps.enqueue(identityOf(dependent.object, dependent.type));
    return;
  }
  if (object.metadata.deletionTimestamp) {
    if (has(object, ORPHAN_FINALIZER)) return orphanDependents(deps, type, object);
    if (has(object, FOREGROUND_FINALIZER)) return deleteDependents(deps, type, object);
    return;
  }
  if (ownerReferences(object).length > 0) return attemptToDelete(deps, type, object);
}

/** Orphan: every dependent loses its references to the owner, then the owner's `orphan` finalizer goes. */
async function orphanDependents(deps: CollectDeps, type: ApiResource, owner: KubeObject): Promise<void> {
  const uid = owner.metadata.uid!;
  for (const dependent of deps.graph.dependents(uid)) await dropReferences(deps.client, dependent.type, dependent.object, new Set([uid]));
  await removeFinalizer(deps.client, type, owner, ORPHAN_FINALIZER);
}

/**
 * Foreground: every dependent not yet being deleted is looked at (it sees its owner waiting and
 * deletes itself); the owner's `foregroundDeletion` finalizer goes once no dependent with
 * `blockOwnerDeletion` is left. Their deletions trigger the owner again.
 */
async function deleteDependents(deps: CollectDeps, type: ApiResource, owner: KubeObject): Promise<void> {
  const uid = owner.metadata.uid!;
  let blocking = 0;
  for (const dependent of deps.graph.dependents(uid)) {
    if (ownerReferences(dependent.object).some((ref) => ref.uid === uid && ref.blockOwnerDeletion === true)) blocking++;
    if (!dependent.object.metadata.deletionTimestamp) deps.enqueue(identityOf(dependent.object, dependent.type));
  }
  if (blocking === 0) await removeFinalizer(deps.client, type, owner, FOREGROUND_FINALIZER);
}

/**
 * A dependent with owners. Each owner is solid (there, or being deleted without waiting for
 * dependents), dangling (gone, or another object by that name: a live GET confirms what the cache
 * does not know) or waiting (being deleted in the foreground).
 * - Some solid owner: references to dangling and waiting owners are removed; the object stays.
 * - Otherwise it is deleted: in the foreground when an owner waits and it has dependents of its own
 *   (the chain goes bottom up), else by its own finalizers' policy (Background by default).
 */
async function attemptToDelete(deps: CollectDeps, type: ApiResource, object: KubeObject): Promise<void> {
  const states = new Map<string, OwnerState>();
  for (const ref of ownerReferences(object)) states.set(ref.uid, await ownerState(deps, object, type, ref));
  const all = [...states.values()];
  if (all.includes('solid')) {
    const drop = new Set([...states].filter(([, state]) => state !== 'solid').map(([uid]) => uid));
    if (drop.size > 0) await dropReferences(deps.client, type, object, drop);
    return;
  }
  const waiting = all.includes('waiting');
  const policy =
    waiting && deps.graph.dependents(object.metadata.uid!).length > 0
      ? 'Foreground'
      : has(object, ORPHAN_FINALIZER)
        ? 'Orphan'
        : has(object, FOREGROUND_FINALIZER)
          ? 'Foreground'
          : 'Background';
  await deleteObject(deps.client, type, object, policy);
}

async function ownerState(deps: CollectDeps, dependent: KubeObject, dependentType: ApiResource, ref: OwnerReference): Promise<OwnerState> {
  const ownerType = deps.graph.typeOf(ref.apiVersion, ref.kind);
  if (!ownerType) throw new Error(`owner reference to ${ref.apiVersion} ${ref.kind} ${ref.name}: no served type has that kind`);
  // A cluster-scoped dependent cannot have a namespaced owner: the reference resolves to nothing.
  if (ownerType.namespaced && !dependentType.namespaced) return 'dangling';
  const id = ownerIdentity(ref, dependent.metadata.namespace ?? '', ownerType.namespaced);
  const cached = deps.graph.get(ownerType, id);
  const owner = cached ?? (await liveOwner(deps.client, ownerType, id));
  if (!owner) return 'dangling';
  return owner.metadata.deletionTimestamp && has(owner, FOREGROUND_FINALIZER) ? 'waiting' : 'solid';
}

/** The owner as the server has it now, when it is the one the reference names (same uid). */
async function liveOwner(client: Client, type: ApiResource, id: Identity): Promise<KubeObject | undefined> {
  try {
    const live = await client.get(type, id.name, type.namespaced ? { namespace: id.namespace } : {});
    return live.metadata.uid === id.uid ? live : undefined;
  } catch (error) {
    if (isStatusError(error, 'NotFound')) return undefined;
    throw error;
  }
}

/** Deletes the object the cache knows (uid precondition: never a newer one of that name). */
async function deleteObject(client: Client, type: ApiResource, object: KubeObject, propagationPolicy: 'Background' | 'Foreground' | 'Orphan'): Promise<void> {
  try {
    await client.delete(type, object.metadata.name!, { namespace: object.metadata.namespace, propagationPolicy, preconditions: { uid: object.metadata.uid! } });
  } catch (error) {
    if (!isStatusError(error, 'NotFound') && !isStatusError(error, 'Conflict')) throw error;
  }
}

/** Removes the references to `uids`, conditional on the version read (a 409 is retried with a fresh cache). */
async function dropReferences(client: Client, type: ApiResource, object: KubeObject, uids: ReadonlySet<string>): Promise<void> {
  const kept = ownerReferences(object).filter((ref) => !uids.has(ref.uid));
  await patchMetadata(client, type, object, { ownerReferences: kept.length > 0 ? kept : null });
}

async function removeFinalizer(client: Client, type: ApiResource, object: KubeObject, finalizer: string): Promise<void> {
  const kept = (object.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  await patchMetadata(client, type, object, { finalizers: kept.length > 0 ? kept : null });
}

async function patchMetadata(client: Client, type: ApiResource, object: KubeObject, metadata: Record<string, unknown>): Promise<void> {
  try {
    await client.patch(type, object.metadata.name!, { metadata: { ...metadata, resourceVersion: object.metadata.resourceVersion } }, {
      namespace: object.metadata.namespace,
    });
  } catch (error) {
    // Gone meanwhile: nothing left to change.
    if (!isStatusError(error, 'NotFound')) throw error;
  }
}

