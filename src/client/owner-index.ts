import type { KubeObject } from '../api/index.js';
import type { IndexFunc } from './cache.js';

/**
 * Built-in index of every informer: an object is filed under the uid of each of its owners (every
 * `metadata.ownerReferences` entry, controller or not). `informer.byOwner(uid)` reads it. The cache
 * keeps it current on each add, update and delete, so finding what an owner owns never scans the
 * cache (client-go controllers build this index by hand; here every informer has it).
 */
export const OWNER_INDEX = 'owner';

export const ownerIndex: IndexFunc<KubeObject> = (object) => {
  const references = object.metadata.ownerReferences;
  if (references === undefined || references.length === 0) return [];
  return references.map((reference) => reference.uid);
};
