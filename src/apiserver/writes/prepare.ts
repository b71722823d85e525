import { randomUUID } from 'node:crypto';
import { hasField, rfc3339, type ObjectMeta } from '../../api/index.js';
import type { ApiObject } from '../api-object.js';
import { jsonEqual } from './json-value.js';

/** The fields the server owns on create: a fresh uid, the creation time, no version yet. */
export function prepareForCreate(object: ApiObject, now: Date | number = Date.now(), uid: string = randomUUID()): ApiObject {
  const metadata = { ...object.metadata, uid, creationTimestamp: rfc3339(now), generation: 1 };
  // Deleted from the copy only when sent (rarely): a delete is cheaper than a rest copy per create.
  if (metadata.resourceVersion !== undefined) delete metadata.resourceVersion;
  if (metadata.deletionTimestamp !== undefined) delete metadata.deletionTimestamp;
  if (metadata.deletionGracePeriodSeconds !== undefined) delete metadata.deletionGracePeriodSeconds;
  return { ...object, metadata };
}

/**
 * The fields an update may not change (uid, creation time, deletion state) come from the stored
 * object; `generation` moves when anything outside metadata and status changes.
 */
export function prepareForUpdate(next: ApiObject, current: ApiObject): ApiObject {
  const nextMeta = next.metadata;
  const curMeta = current.metadata;
  const specChanged = !sameOutsideMetadataAndStatus(next, current);
  const generation = (curMeta.generation ?? 1) + (specChanged ? 1 : 0);
  const metadata: ObjectMeta = {
    ...nextMeta,
    uid: curMeta.uid,
    creationTimestamp: curMeta.creationTimestamp,
    generation,
  };
  if (curMeta.deletionTimestamp) metadata.deletionTimestamp = curMeta.deletionTimestamp;
  else delete metadata.deletionTimestamp;
  if (curMeta.deletionGracePeriodSeconds !== undefined) metadata.deletionGracePeriodSeconds = curMeta.deletionGracePeriodSeconds;
  else delete metadata.deletionGracePeriodSeconds;
  return { ...next, metadata };
}

/**
 * Whether two objects hold equal values in every top-level field but metadata and status.
 * Compared as values: the schema's output and the stored bytes order their keys differently. Field
 * by field, not as two rest copies of the objects: every update compares them.
 */
function sameOutsideMetadataAndStatus(next: ApiObject, current: ApiObject): boolean {
  const keys = Object.keys(next);
  let fields = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key === 'metadata' || key === 'status') continue;
    fields++;
    if (!hasField(current, key) || !jsonEqual(next[key], current[key])) return false;
  }
  const others = Object.keys(current);
  for (let i = 0; i < others.length; i++) if (others[i] !== 'metadata' && others[i] !== 'status') fields--;
  return fields === 0;
}
