import type { Pod } from '../../src/api/index.js';
import type { IndexFunc } from '../../src/client/index.js';

/** The index of pods by the node they are bound to; the node lifecycle and taint-eviction loops share it (one informer). */
export const POD_NODE_INDEX = 'spec.nodeName';
export const podNodeIndex: IndexFunc<Pod> = (pod) => (pod.spec.nodeName ? [pod.spec.nodeName] : []);
