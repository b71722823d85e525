import { describe, expect, it } from 'vitest';
import { of } from 'rxjs';
import { annotationsChanged, type UpdateEvent } from '../../operators/index.js';
import { runChangedPredicateContract } from './changed.contract.js';

runChangedPredicateContract('annotationsChanged', annotationsChanged, {
  same: [{ metadata: { name: 'web', annotations: { note: 'a' }, labels: { x: '1' } } }, { metadata: { name: 'web', annotations: { note: 'a' }, labels: { x: '2' } } }],
  changed: [{ metadata: { name: 'web', annotations: { note: 'a' } } }, { metadata: { name: 'web' } }],
});

describe('annotationsChanged', () => {
  it('compares values, not map identity', () => {
    const kept: UpdateEvent[] = [];
    const events: UpdateEvent[] = [
      { old: { metadata: { annotations: { a: '1' } } }, new: { metadata: { annotations: { a: '1' } } } },
      { old: { metadata: { annotations: { a: '1' } } }, new: { metadata: { annotations: { a: '2' } } } },
    ];
    of(...events).pipe(annotationsChanged()).subscribe((e) => kept.push(e));
    expect(kept).toEqual(events.slice(1));
  });
});
