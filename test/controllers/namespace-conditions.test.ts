import { describe, expect, it } from 'vitest';
import { deletionConditions } from '../../controllers/namespace/index.js';
import { mergeConditions } from '../../controllers/namespace/conditions.js';

const clean = { discoveryFailures: [], contentFailures: [], remaining: new Map<string, number>(), finalizers: new Map<string, number>() };
const byType = (state: Parameters<typeof deletionConditions>[0]) => Object.fromEntries(deletionConditions(state).map((c) => [c.type, c]));

describe('namespace deletion conditions', () => {
  it('are all False, with Kubernetes reasons, when everything went', () => {
    expect(byType(clean)).toEqual({
      NamespaceDeletionDiscoveryFailure: { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
      NamespaceDeletionContentFailure: { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
      NamespaceContentRemaining: { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' },
      NamespaceFinalizersRemaining: { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
    });
  });

  it('say what failed and what remains', () => {
    const c = byType({
      discoveryFailures: ['example.com/v1: down'],
      contentFailures: ['widgets.example.com: forbidden'],
      remaining: new Map([['pods.', 2], ['configmaps.', 1]]),
      finalizers: new Map([['example.com/hold', 3]]),
    });
    expect(c['NamespaceDeletionDiscoveryFailure']).toMatchObject({ status: 'True', reason: 'DiscoveryFailed', message: 'Discovery failed for some groups, 1 failing: example.com/v1: down' });
    expect(c['NamespaceDeletionContentFailure']).toMatchObject({ status: 'True', reason: 'ContentDeletionFailed', message: 'Failed to delete all resource types, 1 remaining: widgets.example.com: forbidden' });
    expect(c['NamespaceContentRemaining']).toMatchObject({ status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances, pods. has 2 resource instances' });
    expect(c['NamespaceFinalizersRemaining']).toMatchObject({ status: 'True', reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: example.com/hold in 3 resource instances' });
  });

  it('merge: nothing changed → no write; a changed one gets a new transition time, an unchanged status keeps it', () => {
    const first = mergeConditions([], deletionConditions(clean), 'T1')!;
    expect(first.every((c) => c.lastTransitionTime === 'T1')).toBe(true);
    expect(mergeConditions(first, deletionConditions(clean), 'T2')).toBeUndefined();
    const next = mergeConditions(first, deletionConditions({ ...clean, remaining: new Map([['pods.', 1]]) }), 'T3')!;
    expect(next.find((c) => c.type === 'NamespaceContentRemaining')).toMatchObject({ status: 'True', lastTransitionTime: 'T3' });
    expect(next.find((c) => c.type === 'NamespaceDeletionDiscoveryFailure')!.lastTransitionTime).toBe('T1');
    const reworded = mergeConditions(next, deletionConditions({ ...clean, remaining: new Map([['pods.', 2]]) }), 'T4')!;
    expect(reworded.find((c) => c.type === 'NamespaceContentRemaining')).toMatchObject({ message: expect.stringContaining('2 resource'), lastTransitionTime: 'T3' });
  });

  it('merge keeps conditions of other types', () => {
    const other = { type: 'Other', status: 'True' };
    expect(mergeConditions([other], deletionConditions(clean), 'T')).toContainEqual(other);
  });
});
