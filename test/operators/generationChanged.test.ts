import { generationChanged } from '../../operators/index.js';
import { runChangedPredicateContract } from './changed.contract.js';

runChangedPredicateContract('generationChanged', generationChanged, {
  same: [{ metadata: { name: 'web', generation: 1, resourceVersion: '7' } }, { metadata: { name: 'web', generation: 1, resourceVersion: '8' } }],
  changed: [{ metadata: { name: 'web', generation: 1 } }, { metadata: { name: 'web', generation: 2 } }],
});
