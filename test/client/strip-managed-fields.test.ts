import { describe, expect, it } from 'vitest';
import { builtinTypes, type KubeObject } from '../../src/api/index.js';
import { stripManagedFields } from '../../src/client/index.js';
import { recordOf } from '../../src/client/lazy/cached-record.js';
import { LazyRecord, lazyObject } from '../../src/client/lazy/json-view.js';
import { lazyProtobufFramer } from '../../src/client/lazy/proto-decode.js';
import { ProtoRecord } from '../../src/client/lazy/proto-view.js';
import { decodeProtobuf, encodeProtobuf, protobufCodec, type JsonObject } from '../../src/encoding/index.js';
import { kindKey, MAXIMAL_BY_HAND, maximalObject, MODEL_OF_KIND } from '../encoding/support/maximal-fixtures.js';

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

// A protobuf view loses the entries from its message bytes: the ObjectMeta's length is written
// again (it may take fewer bytes), nothing is decoded, and the record is filed as a fresh one.
describe('stripManagedFields on a protobuf view', () => {
  const viewOf = (object: JsonObject): KubeObject => (lazyProtobufFramer().push(protobufCodec.frame!('MODIFIED', object)) as { object: KubeObject }[])[0]!.object;
  const full = (object: Record<string, unknown>): JsonObject => decodeProtobuf(encodeProtobuf(object as JsonObject));
  const entry = (manager: string, size: number) => ({ manager, operation: 'Update', apiVersion: 'v1', time: '2026-11-28T09:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { [`f:${'x'.repeat(size)}`]: {} } } } });
  const owners = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'rs', controller: true }];
  const pod = (managedFields: unknown[], annotation = 0) =>
    full({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'n', resourceVersion: '7', labels: { app: 'a' }, annotations: { note: 'y'.repeat(annotation) }, ownerReferences: owners, managedFields },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
      status: { phase: 'Running' },
    });
  // The ObjectMeta's length varint keeps its size, shrinks from 2 bytes to 1, or from 3 to 2.
  const cases: [string, JsonObject, [number, number]][] = [
    ['one small entry', pod([entry('m', 1)], 200), [2, 2]],
    ['entries that take the length from 2 bytes to 1', pod([entry('a', 30), entry('b', 30)]), [2, 1]],
    ['entries that take the length from 3 bytes to 2', pod([entry('a', 9000), entry('b', 9000)], 200), [3, 2]],
  ];
  for (const [what, object, lengthBytes] of cases) {
    it(`drops ${what}; the rest reads as the full decode, the record filed as a fresh one`, () => {
      const view = viewOf(object);
      const stripped = stripManagedFields(view);
      const record = recordOf(stripped) as ProtoRecord;
      expect(record).toBeInstanceOf(ProtoRecord);
      expect(record).not.toBe(recordOf(view));
      expect(record.text.length).toBeLessThan((recordOf(view) as ProtoRecord).text.length);
      // The ObjectMeta is the message's first field: its tag is one byte, its length the rest before it.
      expect([(recordOf(view) as ProtoRecord).metaStart - 1, record.metaStart - 1]).toEqual(lengthBytes);
      expect(stripped.metadata.managedFields).toBeUndefined();
      expect(JSON.parse(JSON.stringify(stripped))).toEqual(withoutManaged(object as unknown as { metadata: Record<string, unknown> }));
      // What the cache files it by, as a record made from the stripped bytes by the decoder.
      const fresh = recordOf(viewOf(withoutManaged(object as unknown as { metadata: Record<string, unknown> }) as unknown as JsonObject)) as ProtoRecord;
      expect(record.text).toBe(fresh.text);
      const filed = (r: ProtoRecord) => [r.key, r.resourceVersion, r.labelValues(), r.ownerValues(), r.metaStart, r.metaEnd, r.mayBeDeleting];
      expect(filed(record)).toEqual(filed(fresh));
      expect(record.sameOwners(fresh) && record.sameLabels(fresh)).toBe(true);
      expect(Object.isFrozen(stripped)).toBe(true);
    });
  }

  it('answers the view itself when the object has no managedFields', () => {
    const view = viewOf(pod([]));
    expect(stripManagedFields(view)).toBe(view);
  });

  it.each(builtinTypes.map((t) => [kindKey(t), t] as const))('%s: the maximal object without its managedFields, and nothing else lost', (key, t) => {
    const model = MODEL_OF_KIND[key];
    const byHand = MAXIMAL_BY_HAND[key];
    const object = full({ kind: t.kind, apiVersion: t.group ? `${t.group}/${t.version}` : t.version, ...(model ? maximalObject(model) : byHand!()) });
    const stripped = stripManagedFields(viewOf(object));
    const metadata = object['metadata'] as Record<string, unknown> | undefined;
    expect(JSON.parse(JSON.stringify(stripped))).toEqual(metadata === undefined ? object : withoutManaged(object as unknown as { metadata: Record<string, unknown> }));
  });
});
