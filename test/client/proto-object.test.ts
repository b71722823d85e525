import { describe, expect, it } from 'vitest';
import { builtinTypes, StatusError } from '../../src/api/index.js';
import { deletionTimestampOf, labelsIndex, orphansKey, stripManagedFields } from '../../src/client/index.js';
import { recordOf } from '../../src/client/lazy/cached-record.js';
import { lazyObject, LazyRecord } from '../../src/client/lazy/json-view.js';
import { lazyFramerFor, lazyProtobufFramer, lazyProtobufListDecoder } from '../../src/client/lazy/proto-decode.js';
import { ProtoRecord } from '../../src/client/lazy/proto-view.js';
import protobuf from 'protobufjs';
import { decodeProtobuf, encodeProtobuf, envelope, messageOf, protobufCodec, protobufListChunks, PROTOBUF_MEDIA_TYPE, type JsonObject } from '../../src/encoding/index.js';
import { kindKey, MAXIMAL_BY_HAND, maximalObject, MODEL_OF_KIND } from '../encoding/support/maximal-fixtures.js';

const apiVersionOf = (t: { group: string; version: string }) => (t.group ? `${t.group}/${t.version}` : t.version);
const frame = (type: string, object: JsonObject) => protobufCodec.frame!(type, object);
type Event = { type: string; object: JsonObject };
const views = (...chunks: Uint8Array[]): Event[] => {
  const framer = lazyProtobufFramer();
  return chunks.flatMap((chunk) => framer.push(chunk) as Event[]);
};
const viewOf = (object: JsonObject) => views(frame('MODIFIED', object))[0]!.object;
/** A MODIFIED watch frame around an envelope's bytes as they are (no re-encoding). */
const protobufEventFrameOf = (body: Uint8Array): Buffer => {
  const lengthOf = (n: number) => {
    const out: number[] = [];
    for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n % 128) | 0x80);
    return [...out, n];
  };
  const ext = [0x0a, ...lengthOf(body.length), ...body];
  const event = [0x0a, 8, ...Buffer.from('MODIFIED'), 0x12, ...lengthOf(ext.length), ...ext];
  const head = Buffer.alloc(4);
  head.writeUInt32BE(event.length);
  return Buffer.concat([head, Uint8Array.from(event)]);
};

const maximal = builtinTypes.map((t) => {
  const model = MODEL_OF_KIND[kindKey(t)];
  const byHand = MAXIMAL_BY_HAND[kindKey(t)];
  if (!model && !byHand) throw new Error(`no Kubernetes model for ${kindKey(t)}`);
  // The round trip's result is what a full decode gives: the views must give exactly that.
  const object = decodeProtobuf(encodeProtobuf({ kind: t.kind, apiVersion: apiVersionOf(t), ...(model ? maximalObject(model) : byHand!()) }));
  return [kindKey(t), object] as const;
});

describe('protobuf views against full decodes of every built-in kind', () => {
  it.each(maximal)('%s: the record reads name, namespace, version and labels from ObjectMeta alone', (_key, full) => {
    const record = recordOf(viewOf(full));
    expect(record).toBeInstanceOf(ProtoRecord);
    const meta = full['metadata'] as JsonObject;
    expect(record!.name).toBe(meta['name']);
    expect(record!.namespace).toBe(meta['namespace']);
    expect(record!.resourceVersion).toBe(meta['resourceVersion']);
    expect(record!.key).toBe(meta['namespace'] ? `${String(meta['namespace'])}/${String(meta['name'])}` : meta['name']);
    expect(record!.labelValues()).toEqual(labelsIndex(full as never));
  });

  it.each(maximal)('%s: each field read alone equals the full decode', (_key, full) => {
    for (const key of Object.keys(full)) {
      // A fresh view per key: nothing decoded before but the key read.
      const view = viewOf(full);
      expect(view[key], key).toEqual(full[key]);
    }
    const metadata = full['metadata'] as JsonObject;
    for (const key of Object.keys(metadata)) expect((viewOf(full)['metadata'] as JsonObject)[key], `metadata.${key}`).toEqual(metadata[key]);
  });

  it.each(maximal)('%s: the whole view equals the full decode, keys in the same order, frozen', (_key, full) => {
    const view = viewOf(full);
    expect(Object.keys(view)).toEqual(Object.keys(full));
    expect(JSON.stringify(view)).toBe(JSON.stringify(full));
    expect(view).toEqual(full);
    expect(Object.isFrozen(view)).toBe(true);
    expect(() => {
      'use strict';
      view['kind'] = 'Other';
    }).toThrow(TypeError);
  });
});

describe('protobuf views', () => {
  const pod = decodeProtobuf(
    encodeProtobuf({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ns', resourceVersion: '7', labels: { app: 'web', tier: 'ünï' }, annotations: { a: 'b' } },
      spec: { containers: [{ name: 'c', image: 'i' }], nodeName: 'n1' },
    }),
  );

  it('reads a nested field without decoding its siblings, and keeps identity while held', () => {
    const view = viewOf(pod);
    const metadata = view['metadata'] as JsonObject;
    expect(metadata['resourceVersion']).toBe('7');
    expect(view['metadata']).toBe(metadata);
    expect(metadata['labels']).toBe(metadata['labels']);
    // Decoding everything (keys) keeps what was handed out.
    expect(Object.keys(view)).toEqual(['kind', 'apiVersion', 'metadata', 'spec']);
    expect(view['metadata']).toBe(metadata);
    expect(Object.isFrozen(metadata)).toBe(true);
    expect(Object.isFrozen(view['spec'])).toBe(true);
    expect(recordOf(metadata)).toBeUndefined();
  });

  it('string fields read alone are the strings written, whatever their shape (the shared short strings leave them as they are)', () => {
    const shapes = ['v1', 'Running', 'ü', 'café', '日本語', 'emoji 🙂', 'x'.repeat(63), 'y'.repeat(64), 'z'.repeat(65), 'é'.repeat(40), 'long '.repeat(100), 'Running'];
    for (const value of shapes) {
      const view = viewOf({ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p', namespace: value, generateName: value }, spec: { nodeName: value, schedulerName: value, containers: [{ name: value, image: value }] } });
      const spec = view['spec'] as JsonObject;
      expect([spec['nodeName'], spec['schedulerName']]).toEqual([value, value]);
      expect((spec['containers'] as JsonObject[])[0]).toEqual({ name: value, image: value });
      const metadata = view['metadata'] as JsonObject;
      expect([metadata['namespace'], metadata['generateName'], recordOf(view)!.namespace]).toEqual([value, value, value]);
    }
  });

  it('refuses writes at every depth', () => {
    const view = viewOf(pod);
    const metadata = view['metadata'] as JsonObject;
    expect(() => ((metadata as Record<string, unknown>)['name'] = 'x')).toThrow(TypeError);
    expect(() => delete (view as Record<string, unknown>)['spec']).toThrow(TypeError);
    expect(() => ((view['spec'] as { containers: unknown[] }).containers as unknown[]).push(1)).toThrow(TypeError);
    expect(view).toEqual(pod);
  });

  it('labels: values as the labels index gives them; equal labels compare equal without decoding', () => {
    const a = recordOf(viewOf(pod))!;
    const b = recordOf(viewOf({ ...pod, metadata: { ...(pod['metadata'] as JsonObject), resourceVersion: '8' } }))!;
    const c = recordOf(viewOf({ ...pod, metadata: { ...(pod['metadata'] as JsonObject), labels: { app: 'web' } } }))!;
    const none = recordOf(viewOf({ ...pod, metadata: { name: 'q' } }))!;
    expect(a.labelValues()).toEqual(['app=web', 'tier=ünï']);
    expect(a.sameLabels(b)).toBe(true);
    expect(a.sameLabels(c)).toBe(false);
    expect(none.labelValues()).toEqual([]);
    expect(none.sameLabels(recordOf(viewOf({ ...pod, metadata: { name: 'r' } }))!)).toBe(true);
    expect(none.sameLabels(a)).toBe(false);
  });

  it('owners: the uids as the owner index gives them; equal ownerReferences compare equal without decoding', () => {
    const ref = (uid: string) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${uid}`, uid, controller: true });
    const meta = pod['metadata'] as JsonObject;
    const a = recordOf(viewOf({ ...pod, metadata: { ...meta, ownerReferences: [ref('u1'), ref('u2')] } }))!;
    const b = recordOf(viewOf({ ...pod, metadata: { ...meta, resourceVersion: '9', ownerReferences: [ref('u1'), ref('u2')] } }))!;
    const c = recordOf(viewOf({ ...pod, metadata: { ...meta, ownerReferences: [ref('u1')] } }))!;
    const none = recordOf(viewOf({ ...pod, metadata: { name: 'q' } }))!;
    expect(a.ownerValues()).toEqual(['u1', 'u2']);
    expect(a.sameOwners(b)).toBe(true);
    expect(a.sameOwners(c)).toBe(false);
    expect(none.ownerValues()).toEqual([orphansKey('')]);
    // Without a controller reference the object is also one of its namespace's orphans.
    const released = recordOf(viewOf({ ...pod, metadata: { ...meta, ownerReferences: [{ ...ref('u1'), controller: false }] } }))!;
    expect(released.ownerValues()).toEqual(['u1', orphansKey(String(meta['namespace'] ?? ''))]);
    expect(none.sameOwners(recordOf(viewOf({ ...pod, metadata: { name: 'r' } }))!)).toBe(true);
    expect(none.sameOwners(a)).toBe(false);
  });

  it('Time and MicroTime fields read off the wire equal the full decode, whatever the bytes', () => {
    // A Lease's message by hand: metadata {name}, spec {renewTime: <time bytes>}; the Time message's
    // own bytes vary (zero, micro, repeated fields, negative seconds, another wire type).
    const lease = messageOf('coordination.svc.io/v1', 'Lease')!;
    const spec = lease.fields['spec']!.resolvedType as protobuf.Type;
    const varint = (n: bigint) => {
      const out: number[] = [];
      let v = BigInt.asUintN(64, n);
      do {
        out.push(Number(v & 0x7fn) | (v > 0x7fn ? 0x80 : 0));
        v >>= 7n;
      } while (v > 0n);
      return out;
    };
    const field = (id: number, wire: number, payload: number[]) => [...varint(BigInt((id << 3) | wire)), ...(wire === 2 ? varint(BigInt(payload.length)) : []), ...payload];
    const time = (...parts: Array<[id: number, value: bigint]>) => parts.flatMap(([id, value]) => field(id, 0, varint(value)));
    const leaseWith = (renewTime: number[], acquireTime: number[] = renewTime) => {
      const meta = field(1, 2, [...Buffer.from('n1')]);
      const specBytes = [...field(spec.fields['renewTime']!.id, 2, renewTime), ...field(spec.fields['acquireTime']!.id, 2, acquireTime)];
      const raw = Uint8Array.from([...field(lease.fields['metadata']!.id, 2, meta), ...field(lease.fields['spec']!.id, 2, specBytes)]);
      return envelope('coordination.svc.io/v1', 'Lease', raw);
    };
    const cases: number[][] = [
      time([1, 1764295200n], [2, 123456789n]),
      time([1, 1764295200n]),
      time([2, 1000n]),
      [],
      time([1, 0n], [2, 0n]),
      time([1, -62135596800n]),
      time([1, -1n], [2, 5000n]),
      time([1, 1n], [1, 1764295200n], [2, 7n], [2, 999999999n]),
      time([1, 253402300799n], [2, 999999000n]),
      [...time([1, 1764295200n]), ...field(2, 5, [1, 0, 0, 0])],
      [...time([1, 1764295200n]), ...field(3, 2, [1, 2, 3])],
      [...field(1, 2, [1]), ...time([2, 5n])],
    ];
    // Either way the same value, or both refuse the bytes.
    const read = (get: () => unknown) => {
      try {
        return { value: get() };
      } catch (error) {
        return { error: (error as Error).constructor.name };
      }
    };
    for (const bytes of cases) {
      const body = leaseWith(bytes);
      type Times = { spec?: { renewTime?: string; acquireTime?: string } };
      const label = Buffer.from(bytes).toString('hex');
      for (const key of ['renewTime', 'acquireTime'] as const) {
        const expected = read(() => (decodeProtobuf(body) as Times).spec?.[key]);
        expect(read(() => (views(protobufEventFrameOf(body))[0]!.object as Times).spec?.[key]), `${key} ${label}`).toEqual(expected);
      }
    }
  });

  it('deletionTimestampOf: from the record when the version has none, else as the view reads it', () => {
    const meta = pod['metadata'] as JsonObject;
    const deleting = { ...pod, metadata: { ...meta, deletionTimestamp: '2026-11-28T02:00:00Z', finalizers: ['f'] } };
    expect(recordOf(viewOf(pod))!.mayBeDeleting).toBe(false);
    expect(deletionTimestampOf(viewOf(pod) as never)).toBeUndefined();
    expect(recordOf(viewOf(deleting))!.mayBeDeleting).toBe(true);
    expect(deletionTimestampOf(viewOf(deleting) as never)).toBe('2026-11-28T02:00:00Z');
    // JSON views alike, and what stripping managedFields leaves of them.
    const json = (object: JsonObject) => lazyObject<never>(JSON.stringify(object), 0);
    const managed = (object: JsonObject) => ({ ...object, metadata: { ...(object['metadata'] as JsonObject), managedFields: [{ manager: 'm', operation: 'Update' }] } });
    expect(recordOf(json(pod))!.mayBeDeleting).toBe(false);
    expect(deletionTimestampOf(json(deleting))).toBe('2026-11-28T02:00:00Z');
    expect(deletionTimestampOf(stripManagedFields(json(managed(deleting))))).toBe('2026-11-28T02:00:00Z');
    expect(recordOf(stripManagedFields(json(managed(pod))))!.mayBeDeleting).toBe(false);
    // A plain object is read as it is.
    expect(deletionTimestampOf(deleting as never)).toBe('2026-11-28T02:00:00Z');
  });

  it('frames split anywhere, several per chunk', () => {
    const bytes = Buffer.concat([frame('ADDED', pod), frame('MODIFIED', pod), frame('DELETED', pod)]);
    const whole = views(bytes);
    expect(whole.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    for (let cut = 1; cut < bytes.length; cut += 7) {
      const split = views(bytes.subarray(0, cut), bytes.subarray(cut));
      expect(split.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(split[2]!.object).toEqual(pod);
    }
    const byByte = views(...Array.from(frame('MODIFIED', pod), (b) => Uint8Array.of(b)));
    expect(byByte[0]!.object).toEqual(pod);
    // Chunks of every small size: headers split, frames spanning several chunks, a chunk ending two frames.
    for (const size of [2, 3, 5, 64, 333]) {
      const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
      const read = views(...chunks);
      expect(read.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(read.map((e) => e.object)).toEqual([pod, pod, pod]);
    }
  });

  it('keeps only the object: a view does not hold the chunk it came in', () => {
    const record = recordOf(viewOf(pod)) as ProtoRecord;
    expect(record.text.length).toBeLessThan(frame('MODIFIED', pod).length);
    expect(Buffer.from(record.text, 'latin1').subarray(0, 2)[0]).toBe(0x0a); // field 1 (metadata), length-delimited
  });

  it('ERROR and BOOKMARK frames are decoded whole', () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old' };
    const [error, bookmark] = views(frame('ERROR', status), frame('BOOKMARK', { apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: '9' } }));
    expect(error!.object).toMatchObject({ code: 410, reason: 'Expired' });
    expect(recordOf(error!.object)).toBeUndefined();
    expect(bookmark!.object).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: '9' } });
  });

  it('malformed frames are the server’s fault: a 500 StatusError naming why', () => {
    const good = Buffer.from(frame('MODIFIED', pod));
    const badMagic = Buffer.from(good);
    badMagic[badMagic.indexOf(Buffer.from('k8s\0'))] = 0x6a;
    const cases: Buffer[] = [badMagic, Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from([0x0a, 0x09, 0x41])]), Buffer.from([0x7f, 0xff, 0xff, 0xff])];
    for (const bytes of cases) {
      let caught: unknown;
      try {
        views(bytes);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(StatusError);
      expect((caught as StatusError).code).toBe(500);
      expect((caught as StatusError).message).toMatch(/protobuf/);
    }
  });

  it('a list body: ListMeta decoded, items as views equal to their full decodes', () => {
    const items = [0, 1, 2].map((i) => ({ ...pod, metadata: { ...(pod['metadata'] as JsonObject), name: `p${i}` } }));
    const body = Buffer.concat([...protobufListChunks('v1', 'PodList', { resourceVersion: '12', continue: 'next' }, items.map((i) => Buffer.from(JSON.stringify(i))))]);
    const list = lazyProtobufListDecoder(body, PROTOBUF_MEDIA_TYPE) as { kind: string; metadata: JsonObject; items: JsonObject[] };
    expect(list.kind).toBe('PodList');
    expect(list.metadata).toEqual({ resourceVersion: '12', continue: 'next' });
    expect(list.items).toEqual(items);
    expect(list.items.every((i) => recordOf(i) instanceof ProtoRecord)).toBe(true);
  });

  it('JSON replies (kinds without a message) are read as lazy JSON views', () => {
    const line = Buffer.from(`${JSON.stringify({ type: 'ADDED', object: { apiVersion: 'x.io/v1', kind: 'Thing', metadata: { name: 't' } } })}\n`);
    const [event] = lazyFramerFor('application/json').push(line) as Event[];
    expect(recordOf(event!.object)).toBeInstanceOf(LazyRecord);
    const list = lazyProtobufListDecoder(Buffer.from(JSON.stringify({ kind: 'ThingList', metadata: { resourceVersion: '3' }, items: [{ kind: 'Thing', metadata: { name: 't' } }] })), 'application/json') as {
      items: JsonObject[];
    };
    expect(recordOf(list.items[0])).toBeInstanceOf(LazyRecord);
  });
});
