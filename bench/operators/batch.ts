// batch: per-item cost of collecting items into batches of 100, against pushing into an array by hand.
import { batch } from '../../operators/index.js';
import { fromArray, perItem, sink, type PerItemRow } from './support.js';

export async function run(): Promise<PerItemRow[]> {
  const N = 10_000;
  const items = Array.from({ length: N }, (_, i) => i);
  const batched = fromArray(items).pipe(batch({ period: 1000, max: 100 }));
  return [
    await perItem(
      'batch',
      'max 100',
      N,
      () => batched.subscribe(sink),
      () => {
        let open: number[] = [];
        for (const item of items) {
          open.push(item);
          if (open.length >= 100) {
            sink(open);
            open = [];
          }
        }
        if (open.length > 0) sink(open);
      },
    ),
  ];
}
