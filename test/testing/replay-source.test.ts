// A replayed source keeps its cache as an informer does and announces each recorded event as the
// informer announced it: `old` on updates from its cache, tombstones, resyncs, late subscribers.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/index.js';
import type { InformerEvent } from '../../src/client/index.js';
import { ReplaySource, type EventLine } from '../../src/testing/index.js';

const cm = (name: string, rv: string, labels?: Record<string, string>, owner?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: rv, ...(labels ? { labels } : {}), ...(owner ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Owner', name: 'o', uid: owner, controller: true }] } : {}) },
});
const line = (type: EventLine['type'], object?: KubeObject, extra: Partial<EventLine> = {}): EventLine => ({ at: 0, source: 's', type, ...(object ? { object } : {}), ...extra });
const summary = (e: InformerEvent<KubeObject>) =>
  `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}${e.type === 'updated' ? ` (was @${e.old.metadata.resourceVersion})` : ''}${e.type === 'deleted' && e.finalStateUnknown ? ' (tombstone)' : ''}`;

describe('ReplaySource', () => {
  it('fills its cache at SYNCED before announcing, then applies each event as an informer does', () => {
    const source = new ReplaySource();
    const seen: string[] = [];
    const synced: boolean[] = [];
    source.synced$.subscribe((s) => synced.push(s));
    source.events$.subscribe((e) => seen.push(summary(e)));

    source.apply(line('SYNCED', undefined, { objects: [cm('a', '1'), cm('b', '2', { app: 'x' }, 'u1')] }));
    expect(synced).toEqual([false, true]);
    expect(source.store.size).toBe(2);
    expect(source.store.byIndex('labels', 'app=x').map((o) => o.metadata.name)).toEqual(['b']);
    expect(source.store.byIndex('owner', 'u1').map((o) => o.metadata.name)).toEqual(['b']);

    source.apply(line('ADDED', cm('a', '1')));
    source.apply(line('MODIFIED', cm('a', '5')));
    source.apply(line('RESYNC', cm('b', '2')));
    source.apply(line('DELETED', cm('b', '2'), { finalStateUnknown: true }));
    source.apply(line('ADDED', cm('c', '6')));
    expect(seen).toEqual(['added a@1', 'updated a@5 (was @1)', 'resync b@2', 'deleted b@2 (tombstone)', 'added c@6']);
    expect(source.store.list().map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort()).toEqual(['a@5', 'c@6']);
    expect(source.store.byIndex('owner', 'u1')).toEqual([]);
    // Cached objects are frozen, as an informer's are.
    expect(Object.isFrozen(source.store.get('ns/a')!.metadata)).toBe(true);
  });

  it('greets a late subscriber with what it holds, as an informer does', () => {
    const source = new ReplaySource();
    source.apply(line('SYNCED', undefined, { objects: [cm('a', '1')] }));
    const seen: string[] = [];
    source.events$.subscribe((e) => seen.push(summary(e)));
    source.apply(line('ADDED', cm('b', '2')));
    expect(seen).toEqual(['added a@1', 'added b@2']);
  });

  it('takes more indexes, and refuses an event without its object', () => {
    const source = new ReplaySource({ indexers: { byName: (o) => [o.metadata.name!] } });
    source.apply(line('ADDED', cm('a', '1')));
    expect(source.store.byIndex('byName', 'a')).toHaveLength(1);
    expect(() => source.apply(line('MODIFIED'))).toThrow(/has no object/);
  });
});
