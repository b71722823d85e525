import { generationChanged } from '../../operators/index.js';
import { predicateRow } from './changed.js';
import type { PerItemRow } from './support.js';

export async function run(): Promise<PerItemRow[]> {
  return [
    await predicateRow(
      'generationChanged',
      generationChanged,
      (i, changed) => [{ metadata: { name: `p${i}`, generation: 1 } }, { metadata: { name: `p${i}`, generation: changed ? 2 : 1 } }],
      (e) => e.old?.metadata?.generation !== e.object.metadata?.generation,
    ),
  ];
}
