// The shared pieces of the workload loops: pods from templates, slow-start batches, readiness and
// availability, and the scale-down order upstream ranks pods by.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { compareActivePods, isPodAvailable, isPodReady, podAvailableAt, podFromTemplate, podNamePrefix, podsToDelete, slowStartBatch } from '../../../controllers/workload/index.js';

const ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'u1', controller: true, blockOwnerDeletion: true };
const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function pod(name: string, opts: { node?: string; phase?: 'Pending' | 'Running' | 'Unknown'; readyAt?: number; restarts?: number; createdAt?: number; cost?: string } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      uid: name,
      ...(opts.createdAt !== undefined ? { creationTimestamp: iso(opts.createdAt) } : {}),
      ...(opts.cost !== undefined ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': opts.cost } } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'busybox' }], ...(opts.node ? { nodeName: opts.node } : {}) },
    status: {
      phase: opts.phase ?? 'Pending',
      conditions: opts.readyAt !== undefined ? [{ type: 'Ready', status: 'True', lastTransitionTime: iso(opts.readyAt) }] : [],
      containerStatuses: [{ name: 'c', restartCount: opts.restarts ?? 0 }],
    },
  };
}

describe('podFromTemplate', () => {
  it('copies labels, annotations and finalizers, sets the controller reference and a generated name', () => {
    const template = { metadata: { labels: { app: 'web' }, annotations: { a: 'b' }, finalizers: ['x/y'] }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    const made = podFromTemplate(template, { namespace: 'ns', controllerRef: ref });
    expect(made.metadata).toEqual({ namespace: 'ns', generateName: 'web-', labels: { app: 'web' }, annotations: { a: 'b' }, finalizers: ['x/y'], ownerReferences: [ref] });
    expect(made.spec).toBe(template.spec);
    made.metadata.labels!['app'] = 'changed';
    expect(template.metadata.labels.app).toBe('web');
  });

  it('drops the dash when the prefix would be too long', () => {
    expect(podNamePrefix('web')).toBe('web-');
    const long = 'a'.repeat(253);
    expect(podNamePrefix(long)).toBe(long);
  });
});

describe('slowStartBatch', () => {
  it('calls in batches of 1, 2, 4, … and stops after the first failing batch', async () => {
    const batches: number[][] = [];
    let current: number[] = [];
    let inFlight = 0;
    const result = await slowStartBatch(20, 1, async (i) => {
      inFlight += 1;
      current.push(i);
      await Promise.resolve();
      if (inFlight === current.length) {
        batches.push(current);
        current = [];
      }
      inFlight -= 1;
      if (i === 9) throw new Error('refused');
    });
    expect(batches.map((b) => b.length)).toEqual([1, 2, 4, 8]);
    expect(result.successes).toBe(14);
    expect((result.error as Error).message).toBe('refused');
  });

  it('makes all calls when none fails, the last batch what remains', async () => {
    let calls = 0;
    expect(await slowStartBatch(10, 1, async () => void (calls += 1))).toEqual({ successes: 10 });
    expect(calls).toBe(10);
    expect(await slowStartBatch(0, 1, async () => void (calls += 1))).toEqual({ successes: 0 });
  });
});

describe('readiness and availability', () => {
  it('is available once ready for minReadySeconds', () => {
    const ready = pod('a', { readyAt: T0 });
    expect(isPodReady(ready)).toBe(true);
    expect(isPodAvailable(ready, 0, T0)).toBe(true);
    expect(isPodAvailable(ready, 10, T0 + 9_999)).toBe(false);
    expect(isPodAvailable(ready, 10, T0 + 10_000)).toBe(true);
    expect(podAvailableAt(ready, 10, T0 + 1)).toBe(T0 + 10_000);
    expect(podAvailableAt(ready, 10, T0 + 10_000)).toBeUndefined();
    expect(isPodAvailable(pod('b'), 0, T0)).toBe(false);
  });
});

describe('the scale-down order', () => {
  it('ranks as ActivePods: unassigned, pending < unknown < running, not ready, ready later, restarts, newer', () => {
    const pods = [
      pod('running-ready-old', { node: 'n', phase: 'Running', readyAt: T0, createdAt: T0 }),
      pod('running-ready-new', { node: 'n', phase: 'Running', readyAt: T0 + 5000, createdAt: T0 }),
      pod('running-restarts', { node: 'n', phase: 'Running', readyAt: T0, restarts: 3, createdAt: T0 }),
      pod('running-not-ready', { node: 'n', phase: 'Running' }),
      pod('unknown', { node: 'n', phase: 'Unknown' }),
      pod('pending', { node: 'n', phase: 'Pending' }),
      pod('unassigned', { phase: 'Pending' }),
    ];
    const sorted = [...pods].sort(compareActivePods).map((p) => p.metadata.name);
    expect(sorted).toEqual(['unassigned', 'pending', 'unknown', 'running-not-ready', 'running-ready-new', 'running-restarts', 'running-ready-old']);
    const byAge = [pod('old', { node: 'n', createdAt: T0 }), pod('new', { node: 'n', createdAt: T0 + 1000 })].sort(compareActivePods);
    expect(byAge.map((p) => p.metadata.name)).toEqual(['new', 'old']);
  });

  it('picks pods to delete by deletion cost, then doubled-up nodes, then readiness', () => {
    const now = T0 + 3_600_000;
    const pods = [
      pod('alone-ready', { node: 'n1', phase: 'Running', readyAt: T0, createdAt: T0 }),
      pod('shared-ready-1', { node: 'n2', phase: 'Running', readyAt: T0, createdAt: T0 }),
      pod('shared-ready-2', { node: 'n2', phase: 'Running', readyAt: T0, createdAt: T0 }),
      pod('costly-pending', { node: 'n3', phase: 'Pending', cost: '100' }),
      pod('cheap-running', { node: 'n3', phase: 'Running', readyAt: T0, cost: '-5', createdAt: T0 }),
    ];
    expect(podsToDelete(pods, pods, 1, now).map((p) => p.metadata.name)).toEqual(['costly-pending']);
    expect(podsToDelete(pods, pods, 3, now).map((p) => p.metadata.name)).toEqual(['costly-pending', 'cheap-running', 'shared-ready-1']);
    expect(podsToDelete(pods, pods, 9, now)).toHaveLength(5);
  });
});
