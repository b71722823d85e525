import { describe, expect, it } from 'vitest';
import { of } from 'rxjs';
import { annotationsChanged, type ChangeEvent } from '../../operators/index.js';
import { runChangedPredicateContract } from './changed.contract.js';

runChangedPredicateContract('annotationsChanged', annotationsChanged, {
  same: [{ metadata: { name: 'web', annotations: { note: 'a' }, labels: { x: '1' } } }, { metadata: { name: 'web', annotations: { note: 'a' }, labels: { x: '2' } } }],
  changed: [{ metadata: { name: 'web', annotations: { note: 'a' } } }, { metadata: { name: 'web' } }],
});

describe('annotationsChanged', () => {
  it('compares values, not map identity', () => {
    const kept: ChangeEvent[] = [];
    const events: ChangeEvent[] = [
      { type: 'updated', old: { metadata: { annotations: { a: '1' } } }, object: { metadata: { annotations: { a: '1' } } } },
      { type: 'updated', old: { metadata: { annotations: { a: '1' } } }, object: { metadata: { annotations: { a: '2' } } } },
    ];
    of(...events).pipe(annotationsChanged()).subscribe((e) => kept.push(e));
    expect(kept).toEqual(events.slice(1));
  });
});
