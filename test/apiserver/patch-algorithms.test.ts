import { describe, expect, it } from 'vitest';
import { deploymentSchema, podSchema } from '../../src/api/index.js';
import { jsonDuplicates } from '../../src/apiserver/request/decode.js';
import { fieldSetOf, fromFieldsV1, toFieldsV1 } from '../../src/apiserver/writes/field-set.js';
import { applyJsonPatch, jsonPatchOperations } from '../../src/apiserver/writes/json-patch.js';
import { applyMergePatch } from '../../src/apiserver/writes/merge-patch.js';
import { applyStrategicMergePatch } from '../../src/apiserver/writes/strategic-merge.js';

const subject = { kind: { group: '', kind: 'ConfigMap' }, name: 'x' };

describe('RFC 7386 merge patch', () => {
  // The examples of RFC 7386 appendix A.
  const golden: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, result] of golden) {
    it(`${JSON.stringify(target)} + ${JSON.stringify(patch)} = ${JSON.stringify(result)}`, () => {
      expect(applyMergePatch(target, patch)).toEqual(result);
    });
  }
});

describe('RFC 6902 JSON patch', () => {
  it('applies the RFC examples', () => {
    expect(applyJsonPatch({ foo: 'bar' }, jsonPatchOperations([{ op: 'add', path: '/baz', value: 'qux' }]), subject)).toEqual({ foo: 'bar', baz: 'qux' });
    expect(applyJsonPatch({ foo: ['bar', 'baz'] }, jsonPatchOperations([{ op: 'add', path: '/foo/1', value: 'qux' }]), subject)).toEqual({ foo: ['bar', 'qux', 'baz'] });
    expect(applyJsonPatch({ foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, jsonPatchOperations([{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }]), subject)).toEqual({
      foo: { bar: 'baz' },
      qux: { corge: 'grault', thud: 'fred' },
    });
    expect(applyJsonPatch({ foo: ['bar'] }, jsonPatchOperations([{ op: 'add', path: '/foo/-', value: ['abc'] }]), subject)).toEqual({ foo: ['bar', ['abc']] });
  });
  it('leaves the document unchanged when an operation fails', () => {
    const doc = { a: 1 };
    expect(() => applyJsonPatch(doc, jsonPatchOperations([{ op: 'add', path: '/b', value: 2 }, { op: 'test', path: '/a', value: 2 }]), subject)).toThrow();
    expect(doc).toEqual({ a: 1 });
  });
  it('rejects a missing path with Invalid', () => {
    expect(() => applyJsonPatch({}, jsonPatchOperations([{ op: 'remove', path: '/nope' }]), subject)).toThrow(expect.objectContaining({ reason: 'Invalid' }));
  });
});

describe('RFC 6902 JSON patch, the edges', () => {
  const apply = (doc: unknown, ops: unknown[]) => applyJsonPatch(doc, jsonPatchOperations(ops), subject);
  it('reads ~1 as / and ~0 as ~, and refuses any other escape with a 400', () => {
    expect(apply({ 'a/b': 1, 'c~d': 2 }, [{ op: 'copy', from: '/a~1b', path: '/c~0d' }])).toEqual({ 'a/b': 1, 'c~d': 1 });
    expect(() => apply({}, [{ op: 'add', path: '/a~2', value: 1 }])).toThrow(expect.objectContaining({ code: 400 }));
    expect(() => apply({}, [{ op: 'add', path: 'a', value: 1 }])).toThrow(expect.objectContaining({ code: 400 }));
  });
  it('indexes lists by digits without leading zeros, appends with -, and refuses an index past the end', () => {
    expect(apply({ l: [1, 2] }, [{ op: 'add', path: '/l/2', value: 3 }, { op: 'add', path: '/l/-', value: 4 }, { op: 'remove', path: '/l/0' }])).toEqual({ l: [2, 3, 4] });
    for (const path of ['/l/01', '/l/3', '/l/-1', '/l/x']) expect(() => apply({ l: [1, 2] }, [{ op: 'add', path, value: 0 }])).toThrow(expect.objectContaining({ reason: 'Invalid' }));
  });
  it('replaces the whole document at the empty path', () => {
    expect(apply({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }])).toEqual({ b: 2 });
  });
  it('refuses a move into its own child, and moves onto itself as a no-op', () => {
    expect(() => apply({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }])).toThrow(expect.objectContaining({ reason: 'Invalid' }));
    expect(apply({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a' }])).toEqual({ a: { b: 1 } });
    // `/a` is no prefix of `/ab`: a sibling whose name starts alike is not a child.
    expect(apply({ a: 1, ab: {} }, [{ op: 'move', from: '/a', path: '/ab/x' }])).toEqual({ ab: { x: 1 } });
  });
  it('reads keys as own fields: __proto__ is data, inherited members do not exist', () => {
    const doc = JSON.parse('{"data":{}}');
    const out = apply(doc, [{ op: 'add', path: '/data/__proto__', value: { polluted: true } }]) as { data: Record<string, unknown> };
    expect(Object.getPrototypeOf(out.data)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out.data, '__proto__')?.value).toEqual({ polluted: true });
    expect(() => apply({}, [{ op: 'add', path: '/__proto__/polluted', value: true }])).toThrow(expect.objectContaining({ reason: 'Invalid' }));
    expect(() => apply({}, [{ op: 'remove', path: '/constructor' }])).toThrow(expect.objectContaining({ reason: 'Invalid' }));
    expect(() => apply({}, [{ op: 'test', path: '/toString', value: {} }])).toThrow(expect.objectContaining({ reason: 'Invalid' }));
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('merge patches and keys that name prototype members', () => {
  it('merges __proto__ and constructor as data, never setting a prototype', () => {
    const out = applyMergePatch({ constructor: 'old' }, JSON.parse('{"__proto__":{"polluted":true},"constructor":{"x":1}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: true });
    expect(out['constructor']).toEqual({ x: 1 });
    expect(out['polluted']).toBeUndefined();
  });
  it('strategic merge refuses deleting the whole object and malformed directives', () => {
    expect(() => applyStrategicMergePatch({ a: 1 }, { $patch: 'delete' }, undefined)).toThrow(expect.objectContaining({ code: 400 }));
    expect(() => applyStrategicMergePatch({ a: 1 }, { $retainKeys: [1] }, undefined)).toThrow(expect.objectContaining({ code: 400 }));
    expect(() => applyStrategicMergePatch({ metadata: {} }, { '$setElementOrder/metadata': [1] }, podSchema)).toThrow(expect.objectContaining({ code: 400 }));
    expect(applyStrategicMergePatch({ a: 1, b: 2 }, { $retainKeys: ['a'] }, undefined)).toEqual({ a: 1 });
  });
});

describe('strategic merge patch', () => {
  const pod = {
    spec: {
      containers: [
        { name: 'a', image: 'a:1', ports: [{ containerPort: 80 }], env: [{ name: 'X', value: '1' }] },
        { name: 'b', image: 'b:1' },
      ],
      tolerations: [{ key: 'k1' }],
    },
    metadata: { finalizers: ['f1'] },
  };
  const golden: [string, unknown, unknown][] = [
    ['merges a container by name', { spec: { containers: [{ name: 'b', image: 'b:2' }] } }, { ...pod.spec, containers: [pod.spec.containers[0], { name: 'b', image: 'b:2' }] }],
    ['appends a new container', { spec: { containers: [{ name: 'c', image: 'c' }] } }, { ...pod.spec, containers: [...pod.spec.containers, { name: 'c', image: 'c' }] }],
    ['deletes a container with $patch: delete', { spec: { containers: [{ name: 'a', $patch: 'delete' }] } }, { ...pod.spec, containers: [pod.spec.containers[1]] }],
    ['replaces an atomic list', { spec: { tolerations: [{ key: 'k2' }] } }, { ...pod.spec, tolerations: [{ key: 'k2' }] }],
    ['removes a field set to null', { spec: { tolerations: null } }, { containers: pod.spec.containers }],
    ['replaces a map with $patch: replace', { spec: { $patch: 'replace', containers: [] } }, { containers: [] }],
    [
      'orders with $setElementOrder',
      { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] } },
      { ...pod.spec, containers: [pod.spec.containers[1], pod.spec.containers[0]] },
    ],
  ];
  for (const [name, patch, spec] of golden) {
    it(name, () => {
      expect((applyStrategicMergePatch(pod, patch, podSchema) as { spec: unknown }).spec).toEqual(spec);
    });
  }
  it('merges ports by containerPort and env by name inside a deployment template', () => {
    const d = { spec: { template: { spec: { containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 80, name: 'http' }], env: [{ name: 'X', value: '1' }] }] } } } };
    const out = applyStrategicMergePatch(
      d,
      { spec: { template: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, name: 'web' }, { containerPort: 81 }], env: [{ name: 'Y', value: '2' }] }] } } } },
      deploymentSchema,
    ) as typeof d;
    expect(out.spec.template.spec.containers[0]).toEqual({
      name: 'a',
      image: 'x',
      ports: [{ containerPort: 80, name: 'web' }, { containerPort: 81 }],
      env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }],
    });
  });
  it('merges finalizers as a set and deletes from them', () => {
    expect(applyStrategicMergePatch(pod, { metadata: { finalizers: ['f2', 'f1'] } }, podSchema)).toMatchObject({ metadata: { finalizers: ['f1', 'f2'] } });
    expect(applyStrategicMergePatch(pod, { metadata: { '$deleteFromPrimitiveList/finalizers': ['f1'] } }, podSchema)).toMatchObject({ metadata: { finalizers: [] } });
  });
  it('retains only the named keys with $retainKeys', () => {
    const out = applyStrategicMergePatch({ spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } }, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, deploymentSchema);
    expect(out).toEqual({ spec: { strategy: { type: 'Recreate' } } });
  });
});

describe('duplicate keys in JSON', () => {
  it('names each repeated key by its path', () => {
    expect(jsonDuplicates('{"a":1,"a":2,"b":{"c":[{"d":1,"d":2}],"c":3},"e":"a\\"","e":0}')).toEqual(['a', 'b.c[0].d', 'b.c', 'e']);
    expect(jsonDuplicates('{"a":{"x":1},"b":{"x":1},"s":"{\\"a\\":1,\\"a\\":2}"}')).toEqual([]);
    // Objects of many keys too (the scan keeps a short object's keys in a list, a long one's in a set).
    const many = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`);
    expect(jsonDuplicates(`{"m":{${many.join(',')},"k3":0,"k39":1,"k40":2,"k40":3}}`)).toEqual(['m.k3', 'm.k39', 'm.k40']);
    expect(jsonDuplicates(`{"m":{${many.join(',')}}}`)).toEqual([]);
  });
});

describe('field sets', () => {
  it('round-trips through FieldsV1 with list items keyed and set items valued', () => {
    const set = fieldSetOf(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', labels: { app: 'x' }, finalizers: ['f'] },
        spec: { containers: [{ name: 'a', image: 'i', ports: [{ containerPort: 80, protocol: 'TCP' }] }] },
      },
      podSchema,
    );
    const fields = toFieldsV1(set);
    expect(fields).toEqual({
      'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:finalizers': { 'v:"f"': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"a"}': {
            '.': {},
            'f:name': {},
            'f:image': {},
            'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
          },
        },
      },
    });
    expect(fromFieldsV1(fields)).toEqual(set);
  });
});
