import type { KubeObject } from '../api/index.js';
import type { IndexFunc } from './cache.js';

/**
 * Built-in index of every informer: an object is filed under the uid of each of its owners (every
 * `metadata.ownerReferences` entry, controller or not). `informer.byOwner(uid)` reads it. The cache
 * keeps it current on each add, update and delete, so finding what an owner owns never scans the
 * cache (client-go controllers build this index by hand; here every informer has it). Objects with
 * no controller are also filed under their namespace's `orphansKey`, so a loop claiming what it owns
 * plus the orphans it may adopt reads two index entries instead of the whole namespace.
 */
export const OWNER_INDEX = 'owner';

/**
 * The index value of a namespace's objects that have no controller (no ownerReference with
 * `controller: true`): the orphans a workload loop may adopt. A uid is a UUID, so this value (it
 * starts with a character no uid has) never meets one. `informer.orphansIn(namespace)` reads it.
 */
export const orphansKey = (namespace: string): string => `!orphans/${namespace}`;

export const ownerIndex: IndexFunc<KubeObject> = (object) => {
  const references = object.metadata.ownerReferences;
  const orphan = references === undefined || !references.some((reference) => reference.controller === true);
  if (references === undefined || references.length === 0) return orphan ? [orphansKey(object.metadata.namespace ?? '')] : [];
  const keys = references.map((reference) => reference.uid);
  if (orphan) keys.push(orphansKey(object.metadata.namespace ?? ''));
  return keys;
};
