import { rfc3339, type ManagedFieldsEntry, type ResourceType } from '../../api/index.js';
import { apiVersionOf, type ApiObject } from '../api-object.js';
import { fieldSetOf, fieldSetsOf, fieldSetWithout, fieldsV1Of, isEncodingOf, ownedAtOrBelow, sameAtEach, sharedCreatedFieldSet, sharedFieldSet, type FieldSet } from './field-set.js';
import { jsonEqual } from './json-value.js';

/** Who writes, and how: an apply, or any other write (`Update`). */
export interface WriteManager {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  /** The subresource written through (`status`, `scale`); a manager's fields are scoped by it. */
  readonly subresource?: string;
}

/** One managedFields entry with its field set decoded. */
export interface Ownership {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion: string;
  readonly time: string;
  /** Decoded from a stored entry, the set is shared (`sharedFieldSet`): copied before it is changed. */
  readonly fields: FieldSet;
  readonly subresource?: string;
}


export const sameManager = (o: Pick<Ownership, 'manager' | 'operation' | 'subresource'>, m: WriteManager) =>
  o.manager === m.manager && o.operation === m.operation && (o.subresource ?? '') === (m.subresource ?? '');

export function ownershipsOf(object: ApiObject, type: ResourceType): Ownership[] {
  return (object.metadata.managedFields ?? []).flatMap((entry) => {
    if (entry.manager === undefined) return [];
    const ownership: Ownership = {
      manager: entry.manager,
      operation: entry.operation === 'Apply' ? 'Apply' : 'Update',
      apiVersion: entry.apiVersion ?? apiVersionOf(type),
      time: entry.time ?? rfc3339(),
      fields: sharedFieldSet(entry.fieldsV1),
      ...(entry.subresource ? { subresource: entry.subresource } : {}),
    };
    if (isWireForm(entry, ownership)) sourceEntries.set(ownership, entry);
    return [ownership];
  });
}

/**
 * The entry an ownership was read from, while the ownership is the one read (a changed one is a
 * new object): written again as it is, not encoded anew. Only an entry that is exactly what
 * `withOwnerships` would write for it is kept.
 */
const sourceEntries = new WeakMap<Ownership, ManagedFieldsEntry>();

const WIRE_KEYS = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1'];
const WIRE_KEYS_SUBRESOURCE = [...WIRE_KEYS, 'subresource'];

function isWireForm(entry: ManagedFieldsEntry, o: Ownership): boolean {
  const keys = Object.keys(entry);
  const expected = o.subresource ? WIRE_KEYS_SUBRESOURCE : WIRE_KEYS;
  return (
    keys.length === expected.length &&
    keys.every((key, i) => key === expected[i]) &&
    entry.manager === o.manager &&
    entry.operation === o.operation &&
    entry.apiVersion === o.apiVersion &&
    entry.time === o.time &&
    entry.fieldsType === 'FieldsV1' &&
    (o.subresource === undefined || entry.subresource === o.subresource) &&
    isEncodingOf(entry.fieldsV1, o.fields)
  );
}

/** The wire form: one entry per manager and operation, empty ones dropped. */
export function withOwnerships(object: ApiObject, ownerships: readonly Ownership[]): ApiObject {
  const managedFields: ManagedFieldsEntry[] = ownerships
    .filter((o) => o.fields.size > 0)
    .map((o) => sourceEntries.get(o) ?? ({
      manager: o.manager,
      operation: o.operation,
      apiVersion: o.apiVersion,
      time: o.time,
      fieldsType: 'FieldsV1',
      fieldsV1: fieldsV1Of(o.fields),
      ...(o.subresource ? { subresource: o.subresource } : {}),
    }));
  const metadata = { ...object.metadata };
  if (managedFields.length > 0) metadata.managedFields = managedFields;
  else delete metadata.managedFields;
  return { ...object, metadata };
}

/** A new object: everything it sets belongs to its writer. */
export function managedFieldsAfterCreate(type: ResourceType, object: ApiObject, manager: WriteManager): ApiObject {
  return withOwnerships(object, [
    { ...manager, apiVersion: apiVersionOf(type), time: rfc3339(), fields: sharedCreatedFieldSet(fieldSetOf(object, type.schema)) },
  ]);
}

/**
 * A write other than apply: the fields it changed or added become its manager's (taken from
 * whoever had them); fields it removed leave every manager. An apply's entries were computed by
 * apply.ts and are kept. A body that carries managedFields other than the stored ones replaces
 * them (an empty list clears them), as Kubernetes allows.
 */
export function managedFieldsAfterUpdate(type: ResourceType, next: ApiObject, current: ApiObject, manager: WriteManager): ApiObject {
  if (manager.operation === 'Apply') return next;
  const sent = next.metadata.managedFields;
  const base = sent !== undefined && !jsonEqual(sent, current.metadata.managedFields) ? next : current;
  if (sent !== undefined && sent.length === 0 && base === next) return withOwnerships(next, []);
  // Fields both versions hold the very same value of (a status write's spec) are in neither set:
  // nothing there changed or went.
  const { before, after, whole } = fieldSetsOf(current, next, type.schema);
  const same = sameAtEach(current, next);
  const changed = [...after].filter((path) => !before.has(path) || !same(path));
  const removed = [...before].filter((path) => !after.has(path));
  if (changed.length === 0 && removed.length === 0) return { ...next, metadata: { ...next.metadata, managedFields: base.metadata.managedFields } };

  const ownerships = ownershipsOf(base, type).map((o) => {
    // A manager whose fields the write leaves alone keeps its (shared) set as it is.
    const taken = sameManager(o, manager) ? [] : changed;
    if (!removed.some((path) => o.fields.has(path)) && !taken.some((path) => o.fields.has(path))) return o;
    return { ...o, fields: fieldSetWithout(o.fields, [...removed, ...taken]) };
  });
  let own = ownerships.find((o) => sameManager(o, manager));
  if (!own) {
    own = { ...manager, apiVersion: apiVersionOf(type), time: rfc3339(), fields: new Set() };
    ownerships.push(own);
  }
  // The writer's set as it was (it already owned what it changed, and all it owns is still there):
  // kept, with its encoded form, without indexing the object's paths.
  const ownFields = own.fields;
  // The next version's whole set is walked only for an owned path outside what the write changed.
  const inNext = (path: string) => after.has(path) || whole().has(path);
  const kept = changed.every((path) => ownFields.has(path)) && every(ownFields, inNext);
  let fields = ownFields;
  if (!kept) {
    // `changed` is in the next version: the index of its ancestors is built only for an owned path that is not.
    let below: ((path: string) => boolean) | undefined;
    const inAfter = (path: string) => inNext(path) || (below ??= ownedAtOrBelow(whole()))(path);
    const next = new Set([...ownFields, ...changed].filter(inAfter));
    if (next.size !== ownFields.size || ![...ownFields].every((path) => next.has(path))) fields = next;
  }
  const updated = { ...own, time: rfc3339(), fields };
  return withOwnerships(next, ownerships.map((o) => (o === own ? updated : o)));
}

function every(set: ReadonlySet<string>, test: (path: string) => boolean): boolean {
  for (const path of set) if (!test(path)) return false;
  return true;
}
