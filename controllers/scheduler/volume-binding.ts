import { isStatusError, podClaims, SELECTED_NODE_ANNOTATION, type PersistentVolume, type PersistentVolumeClaim, type Pod, type StorageClass } from '../../src/api/index.js';
import { builtin, type CacheReader, type Client } from '../../src/client/index.js';
import { bestVolume, classOf, volumeFitsNode, waitsForFirstConsumer } from '../volume-matching/index.js';
import type { FilterPlugin } from './plugin.js';

export const REASON_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';
export const REASON_VOLUME_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const REASON_NO_VOLUME_TO_BIND = "node(s) didn't find available persistent volumes to bind";
/** A class with this provisioner never provisions: its claims bind only to volumes that exist. */
const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

/** The caches the volume binding reads (the scheduler's informers of claims, volumes and classes). */
export interface VolumeBindingCaches {
  readonly claims: CacheReader<PersistentVolumeClaim>;
  readonly volumes: CacheReader<PersistentVolume>;
  readonly classes: CacheReader<StorageClass>;
}

/**
 * kube-scheduler's VolumeBinding, in its two parts svc needs:
 *
 * - a filter: every claim the pod uses exists and is not being deleted; a bound claim's volume
 *   suits the node (its node affinity); an unbound claim is one of a WaitForFirstConsumer class
 *   (an Immediate one must be bound by the binder first), and if that class cannot provision, a
 *   volume that fits exists for this node;
 * - before binding the pod: each unbound WaitForFirstConsumer claim is annotated
 *   `volume.kubernetes.io/selected-node` with the chosen node, which the binder (and provisioners)
 *   wait for. The pod is then bound without waiting for its claims: its node agent waits for
 *   them to be bound before it mounts them.
 */
export class VolumeBinding {
  constructor(
    private readonly caches: VolumeBindingCaches,
    private readonly client: Client,
  ) {}

  readonly filter: FilterPlugin = {
    name: 'VolumeBinding',
    filter: (pod, node) => {
      const claims = podClaims(pod.pod);
      if (claims.length === 0) return undefined;
      const namespace = pod.pod.metadata.namespace ?? '';
      for (const { claimName } of claims) {
        const claim = this.caches.claims.get(`${namespace}/${claimName}`);
        if (!claim) return [`persistentvolumeclaim "${claimName}" not found`];
        if (claim.metadata.deletionTimestamp) return [`persistentvolumeclaim "${claimName}" is being deleted`];
        if (claim.spec.volumeName) {
          const volume = this.caches.volumes.get(claim.spec.volumeName);
          if (volume && node.node && !volumeFitsNode(volume, node.node)) return [REASON_VOLUME_NODE_CONFLICT];
          continue;
        }
        const storageClass = this.caches.classes.get(classOf(claim));
        if (!waitsForFirstConsumer(storageClass)) return [REASON_UNBOUND_IMMEDIATE];
        if (storageClass?.provisioner === NO_PROVISIONER && node.node && !bestVolume(claim, this.caches.volumes.list(), node.node)) return [REASON_NO_VOLUME_TO_BIND];
      }
      return undefined;
    },
  };

  /** Writes the selected node on the pod's unbound WaitForFirstConsumer claims (before the pod is bound). */
  async preBind(pod: Pod, nodeName: string): Promise<void> {
    const namespace = pod.metadata.namespace ?? '';
    for (const { claimName } of podClaims(pod)) {
      const claim = this.caches.claims.get(`${namespace}/${claimName}`);
      // A node chosen already (for an earlier pod of a shared claim) stays chosen.
      if (!claim || claim.spec.volumeName || claim.metadata.annotations?.[SELECTED_NODE_ANNOTATION] !== undefined) continue;
      if (!waitsForFirstConsumer(this.caches.classes.get(classOf(claim)))) continue;
      try {
        await this.client.patch(builtin.persistentVolumeClaims, claimName, { metadata: { annotations: { [SELECTED_NODE_ANNOTATION]: nodeName } } }, { type: 'merge', namespace });
      } catch (error) {
        if (!isStatusError(error, 'NotFound')) throw error;
      }
    }
  }
}
