import { labelsChanged } from '../../operators/index.js';
import { predicateRow } from './changed.js';
import type { PerItemRow } from './support.js';

const sameMap = (a: Readonly<Record<string, string>> = {}, b: Readonly<Record<string, string>> = {}): boolean => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
};

export async function run(): Promise<PerItemRow[]> {
  return [
    await predicateRow(
      'labelsChanged',
      labelsChanged,
      (i, changed) => [
        { metadata: { name: `p${i}`, labels: { app: 'web', tier: 'front' } } },
        { metadata: { name: `p${i}`, labels: { app: changed ? 'api' : 'web', tier: 'front' } } },
      ],
      (e) => !sameMap(e.old?.metadata?.labels, e.object.metadata?.labels),
    ),
  ];
}
