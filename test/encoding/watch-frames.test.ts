import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/api/index.js';
import { decodeProtobufWatchEvent, negotiate, protobufCodec, renderOptions, viewOptions, watchFrames, type JsonObject, type Offer } from '../../src/encoding/index.js';

const pods = builtinRegistry().lookup('', 'v1', 'pods')!;
const offer: Offer = { target: 'watch', protobuf: true, cbor: true, views: true };
const pod = (name: string) =>
  Buffer.from(JSON.stringify({ kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: 'default', creationTimestamp: '2026-11-23T10:00:00Z' }, spec: { containers: [{ name: 'c', image: 'i' }] } }));

function framesFor(accept: string) {
  const rep = negotiate(accept, offer);
  return watchFrames(renderOptions(rep, pods, 'v1', viewOptions(rep, pods, true), false));
}

describe('watch frames in a view', () => {
  it('are encoded once per event for all the watchers of one representation', () => {
    const accept = 'application/json;as=PartialObjectMetadata;g=meta.svc.io;v=v1';
    const [a, b] = [framesFor(accept), framesFor(accept)];
    const json = pod('p');
    const first = a.event('MODIFIED', json);
    expect(b.event('MODIFIED', json)).toBe(first);
    expect(JSON.parse(Buffer.from(first).toString())).toMatchObject({ type: 'MODIFIED', object: { kind: 'PartialObjectMetadata', metadata: { name: 'p' } } });
    // Another event, or the same object as another type, is encoded again.
    expect(b.event('DELETED', json)).not.toBe(first);
    expect(a.event('MODIFIED', pod('q'))).not.toBe(first);
  });

  it('give each Table watch its own first frame, with the column definitions, and share the rest', () => {
    const accept = 'application/json;as=Table;g=meta.svc.io;v=v1';
    const [a, b] = [framesFor(accept), framesFor(accept)];
    const one = pod('one');
    const firstA = JSON.parse(Buffer.from(a.event('ADDED', one)).toString());
    const firstB = JSON.parse(Buffer.from(b.event('ADDED', one)).toString());
    expect(firstA.object.columnDefinitions.length).toBeGreaterThan(0);
    expect(firstB.object.columnDefinitions.length).toBeGreaterThan(0);
    const two = pod('two');
    const later = a.event('MODIFIED', two);
    expect(b.event('MODIFIED', two)).toBe(later);
    expect(JSON.parse(Buffer.from(later).toString()).object.columnDefinitions ?? []).toEqual([]);
  });
});

describe('protobuf watch frames of the Object view', () => {
  const big = (name: string) =>
    // Long enough for two- and three-byte lengths at every level of the frame.
    Buffer.from(JSON.stringify({ kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: 'default', labels: { big: 'x'.repeat(60) } }, spec: { containers: [{ name: 'c', image: 'i'.repeat(20_000) }] } }));

  it('are the bytes protobufjs writes for WatchEvent{type, object: RawExtension{raw: envelope}}', () => {
    const frames = framesFor('application/vnd.svc.protobuf');
    for (const json of [pod('p'), big('b')]) {
      for (const type of ['ADDED', 'MODIFIED', 'DELETED'] as const) {
        const expected = protobufCodec.frame(type, JSON.parse(json.toString()) as JsonObject);
        expect(Buffer.from(frames.event(type, json)).equals(Buffer.from(expected))).toBe(true);
      }
    }
  });

  it('are written once per version and type, and shared by every watcher (DELETED after MODIFIED too)', () => {
    const [a, b] = [framesFor('application/vnd.svc.protobuf'), framesFor('application/vnd.svc.protobuf')];
    const json = big('shared');
    const first = a.event('MODIFIED', json);
    expect(b.event('MODIFIED', json)).toBe(first);
    // The version as another type is a frame of its own, with the right type.
    const deleted = b.event('DELETED', json);
    expect(deleted).not.toBe(first);
    expect(decodeProtobufWatchEvent(deleted.subarray(4)).type).toBe('DELETED');
    expect(a.event('DELETED', json)).toBe(deleted);
    expect(a.event('MODIFIED', json)).toBe(first);
  });
});
