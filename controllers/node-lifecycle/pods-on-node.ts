import type { Pod } from '../../src/api/index.js';
import { indexOn } from '../../src/client/index.js';

/** The index of pods by the node they are bound to; the node lifecycle and taint-eviction loops share it (one informer). */
export const POD_NODE_INDEX = 'spec.nodeName';
// It reads the spec alone: a pod's status writes keep its entry without a look at either version.
export const podNodeIndex = indexOn<Pod>(['spec'], (pod) => (pod.spec.nodeName ? [pod.spec.nodeName] : []));
