import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/index.js';
import { sameOwnerReferences, type ApiResource } from '../../src/client/index.js';
import { lazyObject } from '../../src/client/lazy/json-view.js';
import { OwnershipGraph } from '../../controllers/garbage-collector/graph.js';
import { triggeredBy } from '../../controllers/garbage-collector/triggers.js';

// What an informer event asks the garbage collector to look at. An update that leaves the owner
// references alone (a Node Lease's renewal every 10 s, a pod's status) asks nothing: at 1,000 nodes
// these were 100 looks a second for nothing (docs/benchmarks.md, the manager's steady CPU).

const leases: ApiResource = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true, kind: 'Lease', verbs: ['list', 'watch', 'delete'] };
const nodeRef = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid' };
const lease = (renewTime: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject =>
  ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'n1', namespace: 'kube-node-lease', uid: 'lease-uid', ownerReferences: [nodeRef], ...extra }, spec: { renewTime } }) as KubeObject;
const looked = (old: KubeObject, object: KubeObject) => triggeredBy({ type: 'updated', old, object }, leases, new OwnershipGraph()).map((id) => id.uid);

describe('garbage collector triggers', () => {
  it('an update that leaves the owner references as they were is not looked at', () => {
    expect(looked(lease('t1'), lease('t2'))).toEqual([]);
  });

  it('an object added with owners is looked at', () => {
    expect(triggeredBy({ type: 'added', object: lease('t1') }, leases, new OwnershipGraph()).map((id) => id.uid)).toEqual(['lease-uid']);
  });

  it('an update that adds, changes or drops an owner reference is looked at (a dropped blocking owner too)', () => {
    const otherRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'cm-uid' };
    expect(looked(lease('t1'), lease('t2', { ownerReferences: [nodeRef, otherRef] }))).toEqual(['lease-uid']);
    expect(looked(lease('t1'), lease('t2', { ownerReferences: [{ ...nodeRef, blockOwnerDeletion: true }] }))).toEqual(['lease-uid']);
    const blocking = lease('t1', { ownerReferences: [{ ...nodeRef, blockOwnerDeletion: true }, otherRef] });
    expect(looked(blocking, lease('t2', { ownerReferences: [otherRef] }))).toEqual(['lease-uid', 'node-uid']);
  });

  it('an object being deleted with the foreground or orphan finalizer is looked at on every update', () => {
    const deleting = (t: string) => lease(t, { deletionTimestamp: '2026-11-27T00:00:00Z', finalizers: ['foregroundDeletion'] });
    expect(looked(deleting('t1'), deleting('t2'))).toEqual(['lease-uid']);
  });

  // The informer hands out views over each version's bytes: an update whose ownerReferences are
  // the same bytes is passed over without decoding them, and must answer as the decoded path does.
  describe('on cache views', () => {
    const view = (object: KubeObject) => lazyObject<KubeObject>(JSON.stringify(object), 0);

    it('a renewal with the same references\' bytes is not looked at; the views say so without decoding', () => {
      expect(sameOwnerReferences(view(lease('t1')), view(lease('t2')))).toBe(true);
      expect(looked(view(lease('t1')), view(lease('t2')))).toEqual([]);
    });

    it('an object being deleted with a finalizer the collector owns is still looked at', () => {
      const deleting = (t: string) => view(lease(t, { deletionTimestamp: '2026-11-27T00:00:00Z', finalizers: ['orphan'] }));
      expect(looked(deleting('t1'), deleting('t2'))).toEqual(['lease-uid']);
    });

    it('changed references are compared as before (a dropped blocking owner too)', () => {
      const otherRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'cm-uid' };
      const blocking = view(lease('t1', { ownerReferences: [{ ...nodeRef, blockOwnerDeletion: true }, otherRef] }));
      expect(sameOwnerReferences(blocking, view(lease('t2', { ownerReferences: [otherRef] })))).toBe(false);
      expect(looked(blocking, view(lease('t2', { ownerReferences: [otherRef] })))).toEqual(['lease-uid', 'node-uid']);
    });

    it('a renewal is passed over without reading its metadata: the record says it has no deletionTimestamp', () => {
      // The view behind a proxy that counts reads of `metadata` (the record is still found through it).
      let metadataReads = 0;
      const counted = (object: KubeObject) =>
        new Proxy(object, {
          get: (target, key, receiver) => {
            if (key === 'metadata') metadataReads += 1;
            return Reflect.get(target, key, receiver) as unknown;
          },
        });
      expect(looked(counted(view(lease('t1'))), counted(view(lease('t2'))))).toEqual([]);
      expect(metadataReads).toBe(0);
      // One being deleted is read (and looked at, with the finalizer the collector owns).
      const deleting = (t: string) => counted(view(lease(t, { deletionTimestamp: '2026-11-27T00:00:00Z', finalizers: ['foregroundDeletion'] })));
      expect(looked(deleting('t1'), deleting('t2'))).toEqual(['lease-uid']);
      expect(metadataReads).toBeGreaterThan(0);
    });

    it('plain objects are never taken as the same (they are compared decoded)', () => {
      expect(sameOwnerReferences(lease('t1'), lease('t1'))).toBe(false);
    });
  });
});
