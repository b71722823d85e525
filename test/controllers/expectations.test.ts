// Issue #21: expectations, as upstream's ControllerExpectations, and their observation from informer events.
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/index.js';
import type { InformerEvent } from '../../src/client/index.js';
import { EXPECTATIONS_TTL_MS, Expectations, observeOwned } from '../../controllers/index.js';

describe('Expectations', () => {
  it('is satisfied for an unknown key, and once every expected creation and deletion is observed', () => {
    const e = new Expectations();
    expect(e.satisfied('ns/a')).toBe(true);
    e.expectCreations('ns/a', 2);
    e.expectDeletions('ns/a', ['u1']);
    expect(e.satisfied('ns/a')).toBe(false);
    e.creationObserved('ns/a');
    e.creationObserved('ns/a');
    expect(e.satisfied('ns/a')).toBe(false);
    // A uid not expected does not count.
    e.deletionObserved('ns/a', 'other');
    expect(e.pending('ns/a')).toEqual({ creations: 0, deletions: ['u1'] });
    e.deletionObserved('ns/a', 'u1');
    expect(e.satisfied('ns/a')).toBe(true);
    // Observations beyond what was expected do not go negative and ruin the next expectation.
    e.creationObserved('ns/a');
    e.expectCreations('ns/a', 1);
    expect(e.pending('ns/a').creations).toBe(1);
  });

  it('keeps keys apart', () => {
    const e = new Expectations();
    e.expectCreations('ns/a', 1);
    e.creationObserved('ns/b');
    expect(e.satisfied('ns/a')).toBe(false);
    expect(e.satisfied('ns/b')).toBe(true);
  });

  it('counts as satisfied once the expectation is older than the TTL (5 minutes by default), and a new expectation restarts the clock', () => {
    let now = 1_000;
    const e = new Expectations({ now: () => now });
    e.expectCreations('k', 3);
    now += EXPECTATIONS_TTL_MS - 1;
    expect(e.satisfied('k')).toBe(false);
    now += 1;
    expect(e.satisfied('k')).toBe(true);
    // Expired: a new expectation starts from nothing, not from the 3 never observed.
    e.expectCreations('k', 1);
    expect(e.pending('k').creations).toBe(1);
    expect(e.satisfied('k')).toBe(false);
  });

  it('forgets a deleted key and rejects a bad count', () => {
    const e = new Expectations();
    e.expectCreations('k', 1);
    e.delete('k');
    expect(e.satisfied('k')).toBe(true);
    expect(() => e.expectCreations('k', -1)).toThrow(TypeError);
    expect(() => e.expectCreations('k', 1.5)).toThrow(TypeError);
  });
});

describe('observeOwned', () => {
  const child = (name: string, owner: { apiVersion: string; kind: string; name: string } | undefined, deleting = false): KubeObject => ({
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
      ...(owner ? { ownerReferences: [{ ...owner, uid: `uid-${owner.name}`, controller: true }] } : {}),
    },
  });
  const mine = { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' };

  it('reports adds as creations and deletes (or deletion marks) as deletions under the owner\'s key, and emits that key', () => {
    const e = new Expectations();
    const events = new Subject<InformerEvent<KubeObject>>();
    const keys: string[] = [];
    observeOwned(e, events, { group: 'example.com', kind: 'Widget' }).subscribe((k) => keys.push(k));
    e.expectCreations('ns/w', 1);
    e.expectDeletions('ns/w', ['uid-b', 'uid-c']);
    events.next({ type: 'added', object: child('a', mine) });
    expect(e.pending('ns/w').creations).toBe(0);
    const b = child('b', mine);
    events.next({ type: 'updated', old: b, object: child('b', mine, true) });
    events.next({ type: 'resync', object: child('b', mine, true) });
    expect(e.pending('ns/w').deletions).toEqual(['uid-c']);
    events.next({ type: 'deleted', object: child('c', mine), finalStateUnknown: false });
    expect(e.satisfied('ns/w')).toBe(true);
    expect(keys).toEqual(['ns/w', 'ns/w', 'ns/w']);
  });

  it('ignores objects controlled by another group\'s kind of the same name, or by nobody', () => {
    const e = new Expectations();
    const events = new Subject<InformerEvent<KubeObject>>();
    const keys: string[] = [];
    observeOwned(e, events, { group: 'example.com', kind: 'Widget' }).subscribe((k) => keys.push(k));
    e.expectCreations('ns/w', 1);
    events.next({ type: 'added', object: child('a', { ...mine, apiVersion: 'other.io/v1' }) });
    events.next({ type: 'added', object: child('b', undefined) });
    expect(e.satisfied('ns/w')).toBe(false);
    expect(keys).toEqual([]);
  });
});
