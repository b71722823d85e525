import { CONFIG_MIRROR_ANNOTATION, type Node, type Pod } from '../../api/index.js';
import { CONFIG_HASH_ANNOTATION } from '../sources/index.js';

/** The hash a mirror pod must carry to stand for `staticPod` (its `svc.io/config.hash`). */
export const mirrorHashOf = (staticPod: Pod): string => staticPod.metadata.annotations?.[CONFIG_HASH_ANNOTATION] ?? staticPod.metadata.uid ?? '';

/** Whether `mirror` stands for this version of `staticPod`: a mirror with its hash, not being deleted. */
export const isCurrentMirrorOf = (mirror: Pod, staticPod: Pod): boolean =>
  mirror.metadata.deletionTimestamp === undefined && mirror.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION] === mirrorHashOf(staticPod);

/**
 * The mirror pod of a static pod: its name, namespace, labels, annotations and spec (bound to the
 * node), plus `svc.io/config.mirror: <hash>` and the Node as controlling owner — so that deleting
 * the Node collects its mirrors. UID, resourceVersion and status are the API server's.
 */
export function mirrorPodOf(staticPod: Pod, node: Node): Pod {
  const { name, namespace, labels, annotations } = staticPod.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      ...(labels ? { labels } : {}),
      annotations: { ...annotations, [CONFIG_MIRROR_ANNOTATION]: mirrorHashOf(staticPod) },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.metadata.name ?? '', uid: node.metadata.uid ?? '', controller: true }],
    },
    spec: staticPod.spec,
  };
}
