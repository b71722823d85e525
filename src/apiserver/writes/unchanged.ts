import type { ManagedFieldsEntry, ResourceType } from '../../api/index.js';
import { encodeForStorage, storedBytesOf } from '../storage-codec.js';
import { type ApiObject } from '../api-object.js';

/**
 * What a write to an existing object stores: its bytes, or nothing at all when they are the stored
 * ones. As Kubernetes, an update, patch or apply whose result equals the stored object writes
 * nothing: the resourceVersion stays, no watch event is sent, the stored object is the answer.
 *
 * The test is on bytes, which the write needs anyway: an object that went through the write path
 * encodes its keys in the order it was stored in, so equal objects give equal bytes at the cost
 * of one compare. (A stored object written by another path, in another key order, is written once
 * more, after which it compares equal.) The one field a write that changes nothing still changes is
 * the `time` of an Apply entry in managedFields: when the bytes differ and managedFields differ from
 * the stored ones only by those times, the object is encoded once more with the stored managedFields,
 * and is a no-op if that equals the stored bytes (the new time counts only when something else changed).
 */
export function bytesToStore(type: ResourceType, next: ApiObject, current: ApiObject): Uint8Array | undefined {
  const bytes = encodeForStorage(next, type, true);
  // A new generation (prepareForUpdate: the spec changed) is stored, so the bytes differ, and not
  // only in a time: no comparison. Every Lease renewal is one, and its same-length bytes with a
  // new entry time in managedFields otherwise cost a second encoding of the whole object.
  if (next.metadata.generation !== current.metadata.generation) return bytes;
  const stored = storedBytesOf(current) ?? encodeForStorage(current, type);
  if (Buffer.compare(bytes, stored) === 0) return undefined;
  // Times are fixed-width: an object whose only change is a time is as long as the stored one.
  if (bytes.byteLength !== stored.byteLength || !differOnlyInTime(next.metadata.managedFields, current.metadata.managedFields)) return bytes;
  const withStoredTimes = encodeForStorage({ ...next, metadata: { ...next.metadata, managedFields: current.metadata.managedFields } }, type);
  return Buffer.compare(withStoredTimes, stored) === 0 ? undefined : bytes;
}

/** Two managedFields lists that are the same but for some entries' `time`. */
function differOnlyInTime(a: readonly ManagedFieldsEntry[] | undefined, b: readonly ManagedFieldsEntry[] | undefined): boolean {
  if (a === b || a === undefined || b === undefined || a.length !== b.length) return false;
  // The times first: the entries are encoded to be compared only when one of them differs.
  if (a.every((entry, i) => entry.time === b[i]!.time)) return false;
  for (let i = 0; i < a.length; i++) if (!sameButTime(a[i]!, b[i]!)) return false;
  return true;
}

/**
 * Two entries' JSON the same but for `time`: the same keys in the same order, each value the same
 * (an entry written again as it was shares its fieldsV1 with the stored one: no encoding then).
 */
function sameButTime(x: ManagedFieldsEntry, y: ManagedFieldsEntry): boolean {
  if (x === y) return true;
  const keys = Object.keys(x);
  const other = Object.keys(y);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key !== other[i]) return false;
    if (key === 'time') continue;
    const vx: unknown = x[key as keyof ManagedFieldsEntry];
    const vy: unknown = y[key as keyof ManagedFieldsEntry];
    if (vx !== vy && (typeof vx !== 'object' || typeof vy !== 'object' || JSON.stringify(vx) !== JSON.stringify(vy))) return false;
  }
  return true;
}
