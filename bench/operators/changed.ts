// Shared by the four predicate benches: half the update events change the field, half do not.
import type { MonoTypeOperatorFunction } from 'rxjs';
import type { ChangeEvent, ObjectLike } from '../../operators/index.js';
import { fromArray, perItem, sink, type PerItemRow } from './support.js';

export async function predicateRow(
  operator: string,
  predicate: () => MonoTypeOperatorFunction<ChangeEvent>,
  make: (i: number, changed: boolean) => [ObjectLike, ObjectLike],
  changedByHand: (event: ChangeEvent) => boolean,
): Promise<PerItemRow> {
  const N = 10_000;
  const events: ChangeEvent[] = Array.from({ length: N }, (_, i) => {
    const [old, next] = make(i, i % 2 === 0);
    return { type: 'updated', old, object: next };
  });
  const filtered = fromArray(events).pipe(predicate());
  return perItem(operator, 'half changed', N, () => filtered.subscribe(sink), () => {
    for (const event of events) if (changedByHand(event)) sink(event);
  });
}
