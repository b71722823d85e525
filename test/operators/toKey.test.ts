import { of, range, map, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { toKey, type KeySource } from '../../operators/index.js';
import { testScheduler } from './marbles.js';

const web = { metadata: { namespace: 'default', name: 'web' } };
const node = { metadata: { name: 'node-1' } };
const nameless = { metadata: { namespace: 'default' } };

describe('toKey', () => {
  it('maps objects to namespace/name, cluster-scoped ones to name, and skips nameless ones', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<KeySource>('a-b-c-|', { a: web, b: node, c: nameless });
      expectObservable(source.pipe(toKey())).toBe('x-y---|', { x: 'default/web', y: 'node-1' });
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
  });

  it('reads watch and informer events (the key of `object`)', () => {
    const keys: string[] = [];
    const moved = { metadata: { namespace: 'other', name: 'web' } };
    of<KeySource[]>({ type: 'MODIFIED', object: web }, { type: 'updated', old: web, object: moved }, { type: 'deleted', object: web }, { type: 'added', object: node }, {}).pipe(toKey()).subscribe((k) => keys.push(k));
    expect(keys).toEqual(['default/web', 'other/web', 'default/web', 'node-1']);
  });

  it('completes at once on an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<KeySource>('|');
      expectObservable(source.pipe(toKey())).toBe('|');
      expectSubscriptions(source.subscriptions).toBe('(^!)');
    });
  });

  it('emits nothing and stays subscribed on a source that never emits', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<KeySource>('-');
      expectObservable(source.pipe(toKey())).toBe('-');
      expectSubscriptions(source.subscriptions).toBe('^');
    });
  });

  it('passes an error on', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<KeySource>('a#', { a: web });
      expectObservable(source.pipe(toKey())).toBe('x#', { x: 'default/web' });
      expectSubscriptions(source.subscriptions).toBe('^!');
    });
  });

  it('unsubscribes the source when unsubscribed early', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<KeySource>('a-a-a-|', { a: web });
      expectObservable(source.pipe(toKey()), '^--!').toBe('x-x', { x: 'default/web' });
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('stops a synchronous source as soon as the subscriber has enough', () => {
    let keys: string[] = [];
    range(0, 1e9)
      .pipe(
        map((i) => ({ metadata: { name: `n${i}` } })),
        toKey(),
        take(2),
        toArray(),
      )
      .subscribe((k) => (keys = k));
    expect(keys).toEqual(['n0', 'n1']);
  });
});
