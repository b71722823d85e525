// Issue #21: ownership primitives — controllerRef, the owner index, owns matching group and kind.
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/index.js';
import { CacheWriter, OWNER_INDEX, ownerIndex } from '../../src/client/index.js';
import { controller, controllerOf, controllerRef, isControlledBy } from '../../controllers/index.js';
import { toOwnerKey, type KeySource } from '../../operators/index.js';

const object = (name: string, owners: { apiVersion?: string; kind?: string; name?: string; uid: string; controller?: boolean }[] = [], rv = '1'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace: 'ns',
    resourceVersion: rv,
    ownerReferences: owners.map((o) => ({ apiVersion: o.apiVersion ?? 'v1', kind: o.kind ?? 'Owner', name: o.name ?? 'owner', uid: o.uid, ...(o.controller ? { controller: true } : {}) })),
  },
});

describe('controllerRef', () => {
  it('names the owner by apiVersion, kind, name and uid, as controller and blocking its deletion', () => {
    const owner = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns', uid: 'u-1' } };
    expect(controllerRef(owner)).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u-1', controller: true, blockOwnerDeletion: true });
  });

  it('takes the type when the owner object does not carry it (a core group owner gets a bare version)', () => {
    const owner = { metadata: { name: 'cfg', uid: 'u-2' } };
    expect(controllerRef(owner, { group: '', version: 'v1', kind: 'ConfigMap' })).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', uid: 'u-2' });
    expect(controllerRef(owner, { group: 'example.com', version: 'v1', kind: 'Widget' }).apiVersion).toBe('example.com/v1');
  });

  it('refuses an owner without a type, or one not yet created (no uid)', () => {
    expect(() => controllerRef({ metadata: { name: 'x', uid: 'u' } })).toThrow(TypeError);
    expect(() => controllerRef({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).toThrow(/uid/);
  });

  it('finds the controller among the owner references', () => {
    const child = object('c', [{ uid: 'a' }, { uid: 'b', controller: true }]);
    expect(controllerOf(child)?.uid).toBe('b');
    expect(isControlledBy(child, { metadata: { uid: 'b' } })).toBe(true);
    expect(isControlledBy(child, { metadata: { uid: 'a' } })).toBe(false);
    expect(controllerOf(object('d', [{ uid: 'a' }]))).toBeUndefined();
  });
});

describe('the owner index', () => {
  it('files objects under each owner uid and follows adds, owner changes, deletes and relists incrementally', () => {
    const writer = new CacheWriter<KubeObject>({ [OWNER_INDEX]: ownerIndex });
    const names = (uid: string) => writer.reader.byIndex(OWNER_INDEX, uid).map((o) => o.metadata.name).sort();
    writer.upsert(object('a', [{ uid: 'o1', controller: true }]));
    writer.upsert(object('b', [{ uid: 'o1' }, { uid: 'o2' }]));
    writer.upsert(object('c'));
    expect(names('o1')).toEqual(['a', 'b']);
    expect(names('o2')).toEqual(['b']);
    // b loses o1 and gains o3.
    writer.upsert(object('b', [{ uid: 'o2' }, { uid: 'o3' }], '2'));
    expect(names('o1')).toEqual(['a']);
    expect(names('o3')).toEqual(['b']);
    writer.remove(object('a', [], '3'));
    expect(names('o1')).toEqual([]);
    writer.beginReplace();
    writer.stage(object('c', [{ uid: 'o1' }], '4'));
    writer.commitReplace();
    expect(names('o1')).toEqual(['c']);
    expect(names('o2')).toEqual([]);
    expect(names('o3')).toEqual([]);
  });
});

describe('owns matches the owner reference\'s group and kind', () => {
  const widget = (name: string, apiVersion: string) => ({
    type: 'added',
    object: { metadata: { name, namespace: 'ns', ownerReferences: [{ apiVersion, kind: 'Widget', name: `owner-of-${name}`, uid: `u-${name}`, controller: true }] } },
  });

  it('toOwnerKey with a group skips a same-named kind of another group, and core owners have group ""', () => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, expectObservable }) => {
      const source = cold('abc|', { a: widget('x', 'example.com/v1'), b: widget('y', 'other.io/v1'), c: widget('z', 'v1') });
      expectObservable(source.pipe(toOwnerKey('Widget', 'example.com'))).toBe('a--|', { a: 'ns/owner-of-x' });
      expectObservable(source.pipe(toOwnerKey('Widget', ''))).toBe('--c|', { c: 'ns/owner-of-z' });
    });
  });

  it('a controller owning example.com Widgets\' objects is not triggered by other.io Widgets\' objects', () => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ hot, expectObservable }) => {
      const primary = hot<KeySource>('-------|');
      const owned = hot('-a-b---|', { a: widget('x', 'example.com/v1'), b: widget('y', 'other.io/v1') });
      const results = controller({ name: 'widgets', for: primary, owns: [{ events: owned, group: 'example.com', kind: 'Widget' }], reconcile: () => undefined });
      expectObservable(results).toBe('-a-----|', { a: { type: 'awaitChange', key: 'ns/owner-of-x', item: 'ns/owner-of-x', attempts: 1, controller: 'widgets' } });
    });
  });
});
