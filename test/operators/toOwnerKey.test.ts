import { of, range, map, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { toOwnerKey, type KeySource } from '../../operators/index.js';
import { testScheduler } from './marbles.js';

const owner = (kind: string, name: string, controller?: boolean) => ({ apiVersion: 'apps/v1', kind, name, uid: `uid-${name}`, controller });
const pod = (name: string, ...ownerReferences: ReturnType<typeof owner>[]) => ({ metadata: { namespace: 'default', name, ownerReferences } });

const ownedByWeb = pod('web-1', owner('ReplicaSet', 'web', true));
const ownedByApi = pod('web-1', owner('ReplicaSet', 'api', true));
const orphan = { metadata: { namespace: 'default', name: 'lonely' } };

describe('toOwnerKey', () => {
  it('maps an object to its controller of the kind, skips objects without one, and keys both owners of a move', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<KeySource>('a-b-c---|', { a: ownedByWeb, b: orphan, c: { type: 'updated', old: ownedByWeb, object: ownedByApi } });
      expectObservable(source.pipe(toOwnerKey('ReplicaSet'))).toBe('x---(yx)|', { x: 'default/web', y: 'default/api' });
      expectSubscriptions(source.subscriptions).toBe('^-------!');
    });
  });

  it('follows only controller references of the given kind', () => {
    const keys: string[] = [];
    of<KeySource[]>(
      pod('p1', owner('ReplicaSet', 'not-controller', false)),
      pod('p2', owner('ReplicaSet', 'no-flag')),
      pod('p3', owner('StatefulSet', 'other-kind', true)),
      pod('p4', owner('Deployment', 'mixed', false), owner('ReplicaSet', 'second', true)),
      { type: 'ADDED', object: ownedByWeb },
      { type: 'updated', old: ownedByWeb, object: ownedByWeb },
      { type: 'deleted', object: ownedByWeb },
    )
      .pipe(toOwnerKey('ReplicaSet'))
      .subscribe((k) => keys.push(k));
    expect(keys).toEqual(['default/second', 'default/web', 'default/web', 'default/web']);
  });

  it('completes at once on an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<KeySource>('|');
      expectObservable(source.pipe(toOwnerKey('ReplicaSet'))).toBe('|');
      expectSubscriptions(source.subscriptions).toBe('(^!)');
    });
  });

  it('emits nothing and stays subscribed on a source that never emits', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<KeySource>('-');
      expectObservable(source.pipe(toOwnerKey('ReplicaSet'))).toBe('-');
      expectSubscriptions(source.subscriptions).toBe('^');
    });
  });

  it('passes an error on', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<KeySource>('a#', { a: ownedByWeb });
      expectObservable(source.pipe(toOwnerKey('ReplicaSet'))).toBe('x#', { x: 'default/web' });
      expectSubscriptions(source.subscriptions).toBe('^!');
    });
  });

  it('unsubscribes the source when unsubscribed early', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<KeySource>('a-a-a-|', { a: ownedByWeb });
      expectObservable(source.pipe(toOwnerKey('ReplicaSet')), '^--!').toBe('x-x', { x: 'default/web' });
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('stops a synchronous source as soon as the subscriber has enough', () => {
    let keys: string[] = [];
    range(0, 1e9)
      .pipe(
        map((i) => pod(`p${i}`, owner('ReplicaSet', `rs${i}`, true))),
        toOwnerKey('ReplicaSet'),
        take(2),
        toArray(),
      )
      .subscribe((k) => (keys = k));
    expect(keys).toEqual(['default/rs0', 'default/rs1']);
  });

  it('rejects a missing kind when created', () => {
    expect(() => toOwnerKey('')).toThrow(TypeError);
    expect(() => toOwnerKey(undefined as unknown as string)).toThrow(TypeError);
  });
});
