import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/api/index.js';
import { encodedSourceOf, encodeForStorage } from '../../src/apiserver/storage-codec.js';
import { answerTextFor, servedObjectDecoder } from '../../src/apiserver/served-object.js';
import { protobufEventFrame } from '../../src/encoding/protobuf/envelope.js';

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

describe("the watch cache's decode of a version this server wrote", () => {
  /** `object` behind proxies that count enumerations of it and of its metadata (what a spread or a rest pattern does). */
  function counted<T extends { metadata: object }>(object: T): { object: T; enumerations: () => number } {
    let count = 0;
    const handler: ProxyHandler<object> = {
      ownKeys: (target) => {
        count++;
        return Reflect.ownKeys(target);
      },
    };
    return { object: new Proxy({ ...object, metadata: new Proxy(object.metadata, handler) }, handler) as T, enumerations: () => count };
  }
  const pod = (name: string) => ({
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { name, namespace: 'default', uid: 'u-1', labels: { app: 'web' }, creationTimestamp: '2026-11-27T23:00:00Z' },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] },
    status: { phase: 'Running', podIP: '10.0.0.9' },
  });

  it('copies nothing of the writer\'s object; its protobuf frame, made later from the stored form the encoding made, is byte for byte the frame of a parse', () => {
    const { object, enumerations } = counted(pod('p1'));
    const bytes = encodeForStorage(object, pods, true);
    const before = enumerations();
    const decoded = servedObjectDecoder(pods)(kv(bytes, 12), 12);
    // The decode reads the fields selectors need and copies nothing: no spread of the object or its metadata.
    expect(enumerations()).toBe(before);
    expect(decoded.name).toBe('p1');
    expect(decoded.fields).toContain('n1');

    // The first protobuf frame of the version takes the stored object encodeForStorage made for
    // the bytes: the writer's object is not enumerated again (a Lease renewal made it twice)...
    const frame = protobufEventFrame('ADDED', 'v1', 'Pod', decoded.json);
    expect(enumerations()).toBe(before);
    // ...and is the frame a parse of the same JSON gives (bytes of their own: no object known for them).
    const parsed = protobufEventFrame('ADDED', 'v1', 'Pod', Buffer.from(decoded.json));
    expect(Buffer.from(frame).equals(Buffer.from(parsed))).toBe(true);
    expect(JSON.parse(decoded.json.toString('utf8'))).toEqual({ ...pod('p1'), metadata: { ...pod('p1').metadata, resourceVersion: '12' } });
  });

  it('a version no protobuf reader asks for has nothing made of the writer\'s object after its encoding', () => {
    const { object, enumerations } = counted(pod('p2'));
    const bytes = encodeForStorage(object, pods, true);
    const before = enumerations();
    const decoded = servedObjectDecoder(pods)(kv(bytes, 13), 13);
    // Sixty-four later versions push it out of the memo, unread.
    for (let i = 0; i < 64; i++) servedObjectDecoder(pods)(kv(encodeForStorage(pod(`q${i}`), pods, true), 20 + i), 20 + i);
    protobufEventFrame('ADDED', 'v1', 'Pod', decoded.json);
    expect(enumerations()).toBe(before);
  });

  it("gives the writer its answer text: the cache's served text of the version, or the version spliced in anew before the cache took it", () => {
    const bytes = encodeForStorage(pod('p3'), pods, true);
    const source = encodedSourceOf(bytes)!;
    const early = answerTextFor(source, 30);
    const decoded = servedObjectDecoder(pods)(kv(bytes, 30), 30);
    expect(answerTextFor(source, 30)).toBe(decoded.json.toString('utf8'));
    expect(early).toBe(decoded.json.toString('utf8'));
    expect(JSON.parse(answerTextFor(source, 31)!)).toEqual({ ...pod('p3'), metadata: { ...pod('p3').metadata, resourceVersion: '31' } });
  });
});
