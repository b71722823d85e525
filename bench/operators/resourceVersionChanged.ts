import { resourceVersionChanged } from '../../operators/index.js';
import { predicateRow } from './changed.js';
import type { PerItemRow } from './support.js';

export async function run(): Promise<PerItemRow[]> {
  return [
    await predicateRow(
      'resourceVersionChanged',
      resourceVersionChanged,
      (i, changed) => [{ metadata: { name: `p${i}`, resourceVersion: '7' } }, { metadata: { name: `p${i}`, resourceVersion: changed ? '8' : '7' } }],
      (e) => e.old?.metadata?.resourceVersion !== e.object.metadata?.resourceVersion,
    ),
  ];
}
