// fieldChangesOf (src/apiserver/writes/field-set.ts) takes a top-level field whose value is equal
// in both versions (not only the very same value) as unchanged, without walking or comparing its
// paths: the shortcut a Lease renewal's PUT takes for everything but spec.renewTime. These tests
// hold it to the definition it shortcuts — fieldSetOf of each version, and every path of the next
// one compared — on pairs of real kinds' objects. The changed and removed paths are compared in
// order (the writer's new set is built in that order); the next version's set as a set (its
// order follows the key order of whichever of two equal values was walked, and it is only asked
// what it has).
import { describe, expect, it } from 'vitest';
import { builtinRegistry, type ResourceType } from '../../src/api/index.js';
import { fieldChangesOf, fieldSetOf, sameAt } from '../../src/apiserver/writes/field-set.js';
import type { JsonObject } from '../../src/apiserver/writes/json-value.js';

const registry = builtinRegistry();
const leases = registry.lookup('coordination.k8s.io', 'v1', 'leases')!;
const pods = registry.lookup('', 'v1', 'pods')!;
const deployments = registry.lookup('apps', 'v1', 'deployments')!;

/** The definition: both sets walked in full, every path of `after` compared on its own. */
function byDefinition(type: ResourceType, before: JsonObject, after: JsonObject) {
  const b = fieldSetOf(before, type.schema);
  const a = fieldSetOf(after, type.schema);
  return {
    before: [...b],
    after: [...a].sort(),
    changed: [...a].filter((path) => !b.has(path) || !sameAt(before, after, path)),
    removed: [...b].filter((path) => !a.has(path)),
  };
}

function expectDefinition(type: ResourceType, before: JsonObject, after: JsonObject) {
  const got = fieldChangesOf(before, after, type.schema);
  const expected = byDefinition(type, before, after);
  expect({ before: [...got.before], after: [...got.after].sort(), changed: [...got.changed], removed: [...got.removed] }).toEqual(expected);
  return got;
}

/** A deep copy with every object's keys in reverse order: equal JSON, other key order. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)]));
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const lease = (renewTime: string): JsonObject => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: {
    name: 'node-1',
    namespace: 'kube-node-lease',
    resourceVersion: '7',
    labels: { zone: 'a' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: '7b4ef2a0-0000-4000-8000-000000000001' }],
  },
  spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime },
});

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, annotations: { note: 'x' }, finalizers: ['a', 'b'] },
  spec: {
    containers: [
      { name: 'web', image: 'web:1', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'A', value: '1' }] },
      { name: 'side', image: 'side:1' },
    ],
    tolerations: [{ key: 'k', operator: 'Exists' }],
  },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
};

describe('fieldChangesOf is fieldSetOf of each version and a comparison of every path', () => {
  it('a Lease renewal: only spec.renewTime changed, the rest equal but not the same objects (a decoded body)', () => {
    const before = lease('2026-11-27T10:00:00.000000Z');
    const after = copy(lease('2026-11-27T10:00:10.000000Z'));
    const got = expectDefinition(leases, before, after);
    expect(got.changed).toEqual(['f:spec\nf:renewTime']);
    expect(got.removed).toEqual([]);
  });

  it('equal values in another key order are equal; the very same values too', () => {
    const before = lease('2026-11-27T10:00:00.000000Z');
    expectDefinition(leases, before, reordered(before) as JsonObject);
    expectDefinition(leases, before, { ...before, spec: { ...(before['spec'] as JsonObject), holderIdentity: 'node-2' } });
    expect(fieldChangesOf(before, reordered(before) as JsonObject, leases.schema).changed).toEqual([]);
  });

  it('fields added, removed and changed inside a top-level field, and whole top-level fields added and removed', () => {
    const before = lease('2026-11-27T10:00:00.000000Z');
    const spec = before['spec'] as JsonObject;
    const meta = before['metadata'] as JsonObject;
    expectDefinition(leases, before, { ...before, spec: { holderIdentity: 'node-1', renewTime: spec['renewTime'], leaseTransitions: 1 } });
    expectDefinition(leases, before, { ...before, metadata: { ...meta, labels: { zone: 'a', extra: 'y' } } });
    expectDefinition(leases, before, { ...before, metadata: { ...meta, labels: undefined } });
    const { spec: _spec, ...withoutSpec } = before;
    expectDefinition(leases, before, withoutSpec);
    expectDefinition(leases, withoutSpec, before);
    expectDefinition(leases, before, { ...before, metadata: { ...meta, ownerReferences: [] } });
  });

  it('associative lists and sets: an item changed, added, removed, reordered', () => {
    const spec = pod['spec'] as JsonObject;
    const containers = spec['containers'] as JsonObject[];
    const meta = pod['metadata'] as JsonObject;
    const variants: JsonObject[] = [
      copy(pod),
      reordered(pod) as JsonObject,
      { ...copy(pod), spec: { ...copy(spec), containers: [{ ...containers[0]!, image: 'web:2' }, containers[1]!] } },
      { ...copy(pod), spec: { ...copy(spec), containers: [containers[1]!, containers[0]!] } },
      { ...copy(pod), spec: { ...copy(spec), containers: [containers[0]!] } },
      { ...copy(pod), spec: { ...copy(spec), containers: [...containers, { name: 'third', image: 'x' }] } },
      { ...copy(pod), metadata: { ...copy(meta), finalizers: ['b', 'a'] } },
      { ...copy(pod), metadata: { ...copy(meta), finalizers: ['a'] } },
      { ...copy(pod), status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } },
    ];
    for (const after of variants) {
      expectDefinition(pods, pod, after);
      expectDefinition(pods, after, pod);
    }
  });

  it('a Deployment whose spec is the very same object and whose status changed (a status write)', () => {
    const before: JsonObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
      status: { replicas: 1 },
    };
    expectDefinition(deployments, before, { ...before, status: { replicas: 2, readyReplicas: 2 } });
    expectDefinition(deployments, before, { ...copy(before), spec: { ...copy(before['spec'] as JsonObject), replicas: 3 } });
  });
});
