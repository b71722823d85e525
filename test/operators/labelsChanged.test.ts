import { describe, expect, it } from 'vitest';
import { of } from 'rxjs';
import { labelsChanged, type ChangeEvent } from '../../operators/index.js';
import { runChangedPredicateContract } from './changed.contract.js';

runChangedPredicateContract('labelsChanged', labelsChanged, {
  same: [{ metadata: { name: 'web', labels: { app: 'web', tier: 'front' }, generation: 1 } }, { metadata: { name: 'web', labels: { tier: 'front', app: 'web' }, generation: 2 } }],
  changed: [{ metadata: { name: 'web', labels: { app: 'web' } } }, { metadata: { name: 'web', labels: { app: 'api' } } }],
});

describe('labelsChanged', () => {
  it('treats an absent label map as an empty one, and an added or removed label as a change', () => {
    const kept: ChangeEvent[] = [];
    const events: ChangeEvent[] = [
      { type: 'updated', old: { metadata: { name: 'w' } }, object: { metadata: { name: 'w', labels: {} } } },
      { type: 'updated', old: { metadata: { name: 'w', labels: { a: '1' } } }, object: { metadata: { name: 'w', labels: { a: '1', b: '2' } } } },
      { type: 'updated', old: { metadata: { name: 'w', labels: { a: '1', b: '2' } } }, object: { metadata: { name: 'w', labels: { a: '1' } } } },
    ];
    of(...events).pipe(labelsChanged()).subscribe((e) => kept.push(e));
    expect(kept).toEqual(events.slice(1));
  });
});
