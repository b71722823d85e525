import { resourceVersionChanged } from '../../operators/index.js';
import { runChangedPredicateContract } from './changed.contract.js';

runChangedPredicateContract('resourceVersionChanged', resourceVersionChanged, {
  same: [{ metadata: { name: 'web', resourceVersion: '7' } }, { metadata: { name: 'web', resourceVersion: '7' } }],
  changed: [{ metadata: { name: 'web', resourceVersion: '7' } }, { metadata: { name: 'web', resourceVersion: '8' } }],
});
