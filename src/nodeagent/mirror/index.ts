// Mirror pods: the API server's read-only copies of this node's static pods.
export { isCurrentMirrorOf, mirrorPodOf, mirrorHashOf } from './mirror-pod.js';
export { mirrorPods } from './mirror-pods.js';
export type { MirrorPodsOptions } from './mirror-pods.js';
