import { describe, expect, it } from 'vitest';
import { encodeForStorage, versionedJson } from '../../src/apiserver/objects.js';

const kv = (value: Uint8Array, modRevision: number) => ({ key: '/registry/x', value, modRevision, createRevision: modRevision });

describe('stored object bytes', () => {
  it('leave resourceVersion out and lead with kind, apiVersion and metadata', () => {
    const bytes = encodeForStorage({ data: { a: 'b' }, metadata: { name: 'x', resourceVersion: '9' }, apiVersion: 'v1', kind: 'ConfigMap' });
    expect(new TextDecoder().decode(bytes)).toBe('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"},"data":{"a":"b"}}');
  });

  it('answer a read with the revision spliced into metadata, byte for byte the decoded object', () => {
    const object = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', labels: { metadata: '{"metadata":{' } }, data: { a: 'b' } };
    const json = versionedJson(kv(encodeForStorage(object), 42));
    expect(JSON.parse(json)).toEqual({ ...object, metadata: { ...object.metadata, resourceVersion: '42' } });
  });

  it('splice into empty metadata without a stray comma', () => {
    const json = versionedJson(kv(encodeForStorage({ kind: 'Namespace', apiVersion: 'v1', metadata: {} }), 7));
    expect(JSON.parse(json)).toEqual({ kind: 'Namespace', apiVersion: 'v1', metadata: { resourceVersion: '7' } });
  });

  it('decode and re-encode bytes stored in another layout', () => {
    const other = new TextEncoder().encode('{"metadata":{"name":"y"},"kind":"ConfigMap","apiVersion":"v1"}');
    expect(JSON.parse(versionedJson(kv(other, 3)))).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'y', resourceVersion: '3' } });
  });
});
