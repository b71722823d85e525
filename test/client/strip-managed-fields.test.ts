import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/index.js';
import { stripManagedFields } from '../../src/client/index.js';
import { recordOf } from '../../src/client/lazy/cached-record.js';
import { LazyRecord, lazyObject } from '../../src/client/lazy/json-view.js';

// stripManagedFields on a lazily decoded object cuts the member out of the record's text and
// decodes nothing; the answer is the object JSON.parse would give without it, as a new record.

const managed = [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': {} } }];
const lazy = (object: unknown, around = ''): KubeObject => {
  const text = `${around}${JSON.stringify(object)}`;
  return lazyObject<KubeObject>(text, around.length);
};
const withoutManaged = (object: { metadata: Record<string, unknown> }) => {
  const { managedFields: _dropped, ...metadata } = object.metadata;
  return { ...object, metadata };
};

describe('stripManagedFields on a lazy (JSON) object', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['last in metadata', { name: 'a', namespace: 'n', uid: 'u', labels: { x: 'y' }, managedFields: managed }],
    ['first in metadata', { managedFields: managed, name: 'a', namespace: 'n', uid: 'u' }],
    ['between two members', { name: 'a', managedFields: managed, namespace: 'n', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'x', uid: 'o' }] }],
    ['the only member', { managedFields: managed }],
  ];
  for (const [where, metadata] of cases) {
    it(`drops managedFields ${where}, and the rest reads as before`, () => {
      const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { k: 'v' } };
      // The record's text may hold more than the object (a watch event's line around it).
      const stripped = stripManagedFields(lazy(object, '{"type":"MODIFIED","object":'));
      expect(recordOf(stripped)).toBeInstanceOf(LazyRecord);
      expect(JSON.parse(JSON.stringify(stripped))).toEqual(withoutManaged(object));
      expect(stripped.metadata.managedFields).toBeUndefined();
      expect(Object.isFrozen(stripped)).toBe(true);
    });
  }

  it('answers the object itself when it has no managedFields', () => {
    const object = lazy({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
    expect(stripManagedFields(object)).toBe(object);
  });

  it('keeps what the cache files the object by: name, namespace, version, labels, owners', () => {
    const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'n', resourceVersion: '7', labels: { app: 'a' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'rs', controller: true }], managedFields: managed } };
    const record = recordOf(stripManagedFields(lazy(object))) as LazyRecord;
    expect([record.name, record.namespace, record.resourceVersion, record.labelValues(), record.ownerValues()]).toEqual(['p', 'n', '7', ['app=a'], ['rs']]);
  });

  // The cut record's labels, owners and members are moved, not scanned again: wherever the cut
  // falls, they must be where a fresh scan of the new text finds them.
  const owners = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'rs', controller: true }];
  const placements: [string, Record<string, unknown>][] = [
    ['before the labels and owners', { managedFields: managed, name: 'p', namespace: 'n', resourceVersion: '7', labels: { app: 'a' }, ownerReferences: owners }],
    ['between them', { name: 'p', namespace: 'n', resourceVersion: '7', labels: { app: 'a' }, managedFields: managed, ownerReferences: owners }],
    ['after them', { name: 'p', namespace: 'n', resourceVersion: '7', labels: { app: 'a' }, ownerReferences: owners, managedFields: managed }],
  ];
  for (const [where, metadata] of placements) {
    it(`files the cut record as a fresh scan does, managedFields ${where}`, () => {
      const object = { apiVersion: 'v1', kind: 'Pod', metadata, spec: { nodeName: 'n1' }, status: { phase: 'Running' } };
      const stripped = stripManagedFields(lazy(object, '{"type":"MODIFIED","object":'));
      const record = recordOf(stripped) as LazyRecord;
      const fresh = recordOf(lazyObject<KubeObject>(record.text, 0)) as LazyRecord;
      const filed = (r: LazyRecord) => [r.name, r.namespace, r.resourceVersion, r.labelsText(), r.labelValues(), r.ownerValues(), r.labelsStart, r.labelsEnd, r.ownersStart, r.ownersEnd];
      expect(filed(record)).toEqual(filed(fresh));
      expect(record.ownerValues()).toEqual(['rs']);
      expect(record.sameOwners(fresh)).toBe(true);
      expect((stripped as unknown as { spec: { nodeName: string } }).spec.nodeName).toBe('n1');
      expect(stripped.metadata.ownerReferences).toEqual(owners);
      expect(JSON.parse(JSON.stringify(stripped))).toEqual(withoutManaged(object));
    });
  }

  it('copies a plain object without the member, as before', () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', managedFields: managed } } as unknown as KubeObject;
    expect(stripManagedFields(object)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  });
});
