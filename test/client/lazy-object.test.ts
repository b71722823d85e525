import { describe, expect, it } from 'vitest';
import { jsonCodec, orphansKey } from '../../src/client/index.js';
import { lazyJsonLinesFramer, lazyListDecoder } from '../../src/client/lazy/json-decode.js';
import { lazyObject, recordOf } from '../../src/client/lazy/json-view.js';
import type { KubeObject } from '../../src/api/index.js';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-0',
    namespace: 'shop',
    resourceVersion: '42',
    labels: { app: 'web', 'tier.svc.io/x': 'front "end"' },
    managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:metadata': {} } }],
  },
  spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'web:1', env: [{ name: 'GREETING', value: 'grüß dich 🚀' }] }] },
  status: { phase: 'Running' },
};

function view(value: unknown): KubeObject {
  const text = `{"type":"ADDED","object":${JSON.stringify(value)}}`;
  return lazyObject<KubeObject>(text, text.indexOf('"object":') + 9);
}

describe('lazy views', () => {
  it('equal the eager decode: same keys in the same order, same values, same JSON', () => {
    const v = view(pod);
    expect(v).toEqual(pod);
    expect(Object.keys(v)).toEqual(Object.keys(pod));
    expect(JSON.stringify(v)).toBe(JSON.stringify(pod));
    expect(Object.keys(v.metadata)).toEqual(Object.keys(pod.metadata));
    expect({ ...v.metadata }).toEqual(pod.metadata);
  });

  it('are frozen, deeply: writes fail as on a frozen object', () => {
    const v = view(pod) as typeof pod;
    expect(Object.isFrozen(v)).toBe(true);
    expect(Object.isFrozen(v.metadata)).toBe(true);
    expect(Object.isFrozen(v.spec.containers)).toBe(true);
    expect(Object.isFrozen(v.spec.containers[0])).toBe(true);
    expect(() => {
      (v as { kind: string }).kind = 'X';
    }).toThrow(TypeError);
    expect(() => {
      v.metadata.labels.app = 'x';
    }).toThrow(TypeError);
    expect(() => delete (v as Partial<typeof pod>).status).toThrow(TypeError);
    expect(v.kind).toBe('Pod');
  });

  it('decode each field once: repeated reads give the same object', () => {
    const v = view(pod) as typeof pod;
    const meta = v.metadata;
    expect(v.metadata).toBe(meta);
    expect(v.spec.containers).toBe(v.spec.containers);
    expect(v.metadata.labels).toBe(meta.labels);
    // Filling the whole object (keys, freezing) keeps what was decoded before.
    expect(Object.keys(v)).toHaveLength(5);
    expect(v.metadata).toBe(meta);
  });

  it('answer `in`, hasOwnProperty, prototype methods and absent keys as a plain object does', () => {
    const v = view(pod);
    expect('spec' in v).toBe(true);
    expect('nope' in v).toBe(false);
    expect(Object.prototype.hasOwnProperty.call(v, 'status')).toBe(true);
    expect((v as unknown as Record<string, unknown>)['nope']).toBeUndefined();
    expect(typeof v.toString).toBe('function');
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Array.isArray(v)).toBe(false);
  });

  it('keep JSON.parse’s meaning for repeated keys, "__proto__" and escapes', () => {
    const text = '{"a":1,"__proto__":{"x":1},"b":"\\u00e9\\"","a":2,"metadata":{"name":"n\\u0031"}}';
    const v = lazyObject<KubeObject>(text, 0);
    const eager = JSON.parse(text) as KubeObject;
    expect(Object.keys(v)).toEqual(Object.keys(eager));
    expect((v as unknown as Record<string, unknown>)['a']).toBe(2);
    expect(JSON.stringify(v)).toBe(JSON.stringify(eager));
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(recordOf(v)?.name).toBe('n1');
  });

  it('record name, namespace, version and labels, with or without them', () => {
    const r = recordOf(view(pod))!;
    expect([r.key, r.resourceVersion]).toEqual(['shop/web-0', '42']);
    expect(r.labelValues()).toEqual(['app=web', 'tier.svc.io/x=front "end"']);
    const bare = recordOf(view({ kind: 'Namespace', metadata: { name: 'n' } }))!;
    expect([bare.key, bare.namespace, bare.resourceVersion, bare.labelValues()]).toEqual(['n', undefined, undefined, []]);
    const none = recordOf(view({ kind: 'X' }))!;
    expect([none.key, none.labelValues()]).toEqual(['', []]);
  });

  it('record owners: the uids as the owner index gives them; equal ownerReferences text compares equal', () => {
    const ref = (uid: string) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${uid}`, uid });
    const a = recordOf(view({ kind: 'Pod', metadata: { name: 'a', resourceVersion: '1', ownerReferences: [ref('u1'), ref('u2')] } }))!;
    const b = recordOf(view({ kind: 'Pod', metadata: { name: 'a', resourceVersion: '2', ownerReferences: [ref('u1'), ref('u2')] } }))!;
    const c = recordOf(view({ kind: 'Pod', metadata: { name: 'a', ownerReferences: [ref('u2')] } }))!;
    const none = recordOf(view({ kind: 'Pod', metadata: { name: 'a' } }))!;
    // No reference is the controller's: the object is also filed as one of its namespace's orphans.
    expect(a.ownerValues()).toEqual(['u1', 'u2', orphansKey('')]);
    expect([a.sameOwners(b), a.sameOwners(c), none.sameOwners(a)]).toEqual([true, false, false]);
    expect(none.ownerValues()).toEqual([orphansKey('')]);
    const controlled = recordOf(view({ kind: 'Pod', metadata: { name: 'a', namespace: 'ns', ownerReferences: [ref('u1'), { ...ref('u2'), controller: true }] } }))!;
    expect(controlled.ownerValues()).toEqual(['u1', 'u2']);
    const released = recordOf(view({ kind: 'Pod', metadata: { name: 'a', namespace: 'ns', ownerReferences: [{ ...ref('u2'), controller: false }] } }))!;
    expect(released.ownerValues()).toEqual(['u2', orphansKey('ns')]);
    expect(none.sameOwners(recordOf(view({ kind: 'Pod', metadata: { name: 'b' } }))!)).toBe(true);
  });

  it('a record gives the live view while it is held', () => {
    const v = view(pod);
    const r = recordOf(v)!;
    expect(r.view()).toBe(v);
    expect(recordOf(v.metadata)).toBeUndefined();
    expect(recordOf({ metadata: {} })).toBeUndefined();
  });
});

describe('lazy decoders', () => {
  it('frame watch lines split anywhere, multi-byte characters included', () => {
    const events = [
      { type: 'ADDED', object: pod },
      { type: 'MODIFIED', object: { ...pod, metadata: { ...pod.metadata, resourceVersion: '43', name: 'ünï' } } },
      { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } },
    ];
    const bytes = Buffer.from(events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    for (const size of [1, 7, 64, bytes.length]) {
      const framer = lazyJsonLinesFramer();
      const frames: unknown[] = [];
      for (let i = 0; i < bytes.length; i += size) frames.push(...framer.push(bytes.subarray(i, i + size)));
      expect(frames).toEqual(events);
      expect(recordOf((frames[1] as { object: unknown }).object)?.name).toBe('ünï');
      expect(recordOf((frames[2] as { object: unknown }).object)).toBeUndefined();
    }
  });

  it('decode list bodies with each item a view, ASCII or not', () => {
    const decode = lazyListDecoder(jsonCodec);
    for (const items of [[pod, { ...pod, metadata: { ...pod.metadata, name: 'web-1' } }], [{ kind: 'X', metadata: { name: 'ascii' } }]]) {
      const body = { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '9', continue: 'c' }, items };
      const decoded = decode(Buffer.from(JSON.stringify(body)), 'application/json') as typeof body;
      expect(decoded).toEqual(body);
      expect(decoded.items.every((i) => recordOf(i) !== undefined)).toBe(true);
    }
  });
});
