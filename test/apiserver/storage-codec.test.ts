import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/api/index.js';
import { encodeForStorage } from '../../src/apiserver/storage-codec.js';
import { servedObjectDecoder } from '../../src/apiserver/served-object.js';

const kv = (value: Uint8Array, modRevision: number) => ({ key: '/registry/x', value, modRevision, createRevision: modRevision });
const configMaps = builtinRegistry().lookup('', 'v1', 'configmaps')!;
const pods = builtinRegistry().lookup('', 'v1', 'pods')!;
const served = (value: Uint8Array, revision: number) => servedObjectDecoder(configMaps)(kv(value, revision), revision);
const text = (value: Uint8Array, revision: number) => served(value, revision).json.toString('utf8');

describe('stored object bytes', () => {
  it('leave resourceVersion out and lead with kind, apiVersion and metadata', () => {
    const bytes = encodeForStorage({ data: { a: 'b' }, metadata: { name: 'x', resourceVersion: '9' }, apiVersion: 'v1', kind: 'ConfigMap' });
    expect(new TextDecoder().decode(bytes)).toBe('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"},"data":{"a":"b"}}');
  });

  it('are served with the revision spliced into metadata, equal to the decoded object', () => {
    const object = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', labels: { metadata: '{"metadata":{' } }, data: { a: 'b' } };
    expect(JSON.parse(text(encodeForStorage(object), 42))).toEqual({ ...object, metadata: { ...object.metadata, resourceVersion: '42' } });
  });

  it('splice into empty metadata without a stray comma', () => {
    expect(JSON.parse(text(encodeForStorage({ kind: 'Namespace', apiVersion: 'v1', metadata: {} }), 7))).toEqual({
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { resourceVersion: '7' },
    });
  });

  it('re-stamp a version that already carries a resourceVersion (the last state of a deleted object)', () => {
    const first = served(encodeForStorage({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' } }), 5).json;
    expect(JSON.parse(text(first, 9)).metadata).toEqual({ name: 'x', resourceVersion: '9' });
  });

  it('decode and re-encode bytes stored in another layout', () => {
    const other = new TextEncoder().encode('{"metadata":{"name":"y"},"kind":"ConfigMap","apiVersion":"v1"}');
    expect(JSON.parse(text(other, 3))).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'y', resourceVersion: '3' } });
  });

  it('keep the labels and the selectable fields, in the order of the type', () => {
    const pod = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p', namespace: 'ns', labels: { app: 'a' } }, spec: { nodeName: 'n1' }, status: { phase: 'Running' } };
    const object = servedObjectDecoder(pods)(kv(encodeForStorage(pod), 4), 4);
    expect(object.labels).toEqual({ app: 'a' });
    const fields = Object.fromEntries(Object.keys(pods.fieldSelectors).map((name, i) => [name, object.fields[i]]));
    expect(fields).toMatchObject({ 'metadata.name': 'p', 'metadata.namespace': 'ns', 'spec.nodeName': 'n1', 'status.phase': 'Running' });
  });

  it('name an undecodable value as a storage read error', () => {
    expect(() => served(new TextEncoder().encode('{nope'), 1)).toThrow(/cannot be decoded/);
  });
});
