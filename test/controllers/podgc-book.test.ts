// The pod garbage collector's book (controllers/podgc/pod-book.ts): what its passes look at — the
// pods bound to each node, the pods being deleted, the ended ones not being deleted — kept from
// the pod informer's events, over the protobuf views the manager's caches hand out.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/index.js';
import type { InformerEvent } from '../../src/client/index.js';
import { lazyProtobufFramer } from '../../src/client/lazy/proto-decode.js';
import { protobufCodec, type JsonObject } from '../../src/encoding/index.js';
import { PodBook } from '../../controllers/podgc/pod-book.js';

let version = 0;
const pod = (name: string, spec: JsonObject = {}, status?: JsonObject, meta: JsonObject = {}): Pod => {
  const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'n', resourceVersion: String(++version), ...meta }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec }, ...(status ? { status } : {}) };
  return (lazyProtobufFramer().push(protobufCodec.frame!('MODIFIED', object as JsonObject)) as { object: Pod }[])[0]!.object;
};
/** The pod, its reads of `spec` counted. */
const counted = (view: Pod, reads: { spec: number }): Pod =>
  new Proxy(view, {
    get(target, key) {
      if (key === 'spec') reads.spec += 1;
      return Reflect.get(target, key) as unknown;
    },
  });
const booked = (book: PodBook) => ({
  nodes: Object.fromEntries([...book.nodes()].map((node) => [node, [...book.podsOn(node)].sort()])),
  deleting: [...book.deleting].sort(),
  ended: [...book.ended].sort(),
});

describe('podgc’s book', () => {
  it('follows binding, deletion, ending and removal through the events', () => {
    const book = new PodBook();
    const a0 = pod('a');
    const a1 = pod('a', { nodeName: 'n1' });
    const a2 = pod('a', { nodeName: 'n1' }, { phase: 'Succeeded' });
    const b0 = pod('b', { nodeName: 'n2' });
    const b1 = pod('b', { nodeName: 'n2' }, undefined, { deletionTimestamp: '2026-11-28T10:00:00Z', finalizers: ['f'] });
    const events: InformerEvent<Pod>[] = [
      { type: 'added', object: a0 },
      { type: 'added', object: b0 },
      { type: 'updated', old: a0, object: a1 },
      { type: 'updated', old: a1, object: a2 },
      { type: 'updated', old: b0, object: b1 },
      { type: 'resync', object: b1 },
    ];
    for (const event of events) book.apply(event);
    expect(booked(book)).toEqual({ nodes: { n1: ['n/a'], n2: ['n/b'] }, deleting: ['n/b'], ended: ['n/a'] });
    // Ended but being deleted: no longer among the ended ones.
    const a3 = pod('a', { nodeName: 'n1' }, { phase: 'Succeeded' }, { deletionTimestamp: '2026-11-28T10:00:00Z', finalizers: ['f'] });
    book.apply({ type: 'updated', old: a2, object: a3 });
    expect(booked(book)).toEqual({ nodes: { n1: ['n/a'], n2: ['n/b'] }, deleting: ['n/a', 'n/b'], ended: [] });
    book.apply({ type: 'deleted', object: b1, finalStateUnknown: true });
    book.apply({ type: 'deleted', object: a3, finalStateUnknown: false });
    expect(booked(book)).toEqual({ nodes: {}, deleting: [], ended: [] });
  });

  it('reads the node of an update only when the spec changed', () => {
    const book = new PodBook();
    const reads = { spec: 0 };
    const bound = pod('a', { nodeName: 'n1' });
    book.apply({ type: 'added', object: bound });
    book.apply({ type: 'updated', old: bound, object: counted(pod('a', { nodeName: 'n1' }, { phase: 'Running' }), reads) });
    expect(reads.spec).toBe(0);
    book.apply({ type: 'updated', old: bound, object: counted(pod('a', { nodeName: 'n9' }, { phase: 'Running' }), reads) });
    expect(reads.spec).toBe(1);
    expect(booked(book).nodes).toEqual({ n9: ['n/a'] });
  });

  it('fill takes the cache whole, and agrees with the events it meets again (idempotent)', () => {
    const book = new PodBook();
    const pods = [pod('a', { nodeName: 'n1' }), pod('b', {}, { phase: 'Failed' }), pod('c', { nodeName: 'n1' }, undefined, { deletionTimestamp: '2026-11-28T10:00:00Z', finalizers: ['f'] })];
    expect(book.filled).toBe(false);
    book.apply({ type: 'added', object: pods[0]! });
    book.fill(pods);
    for (const object of pods) book.apply({ type: 'added', object });
    expect(book.filled).toBe(true);
    expect(booked(book)).toEqual({ nodes: { n1: ['n/a', 'n/c'] }, deleting: ['n/c'], ended: ['n/b'] });
    book.clear();
    expect([book.filled, booked(book)]).toEqual([false, { nodes: {}, deleting: [], ended: [] }]);
  });
});
