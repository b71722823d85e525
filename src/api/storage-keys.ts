/**
 * The annotation keys, finalizers and names the storage parts share: the volume binder and the
 * host-path provisioner (controller manager), the scheduler (volume binding), the admission plugin
 * that defaults a claim's class, and the node agent. Upstream's names, since kubectl and real
 * provisioners read and write them ([persistent-volumes.md](../../docs/persistent-volumes.md)).
 */

/** On a claim of a WaitForFirstConsumer class: the node the scheduler picked for its first pod. */
export const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node';
/** On a claim the binder has finished binding (it then trusts `spec.volumeName`). */
export const BIND_COMPLETED_ANNOTATION = 'pv.kubernetes.io/bind-completed';
/** On a claim or volume the binder (not the user) bound. */
export const BOUND_BY_CONTROLLER_ANNOTATION = 'pv.kubernetes.io/bound-by-controller';
/** On a provisioned volume: the provisioner that made it (the one to delete it on reclaim). */
export const PROVISIONED_BY_ANNOTATION = 'pv.kubernetes.io/provisioned-by';
/** On a claim waiting for a provisioner: which one (the beta key is still read by older provisioners). */
export const STORAGE_PROVISIONER_ANNOTATION = 'volume.kubernetes.io/storage-provisioner';
export const BETA_STORAGE_PROVISIONER_ANNOTATION = 'volume.beta.kubernetes.io/storage-provisioner';
/** On a StorageClass: `"true"` makes it the class of claims that name none. */
export const DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
export const BETA_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';

/** Keeps a claim while a pod uses it (the pvc-protection loop removes it). */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
/** Keeps a volume while it is bound (the pv-protection loop removes it). */
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

/** The node label a host-path volume's node affinity names (svc's spelling of kubernetes.io/hostname; the node agent sets it). */
export const HOSTNAME_LABEL = 'svc.io/hostname';

/** The host-path provisioner's name, in its StorageClass's `provisioner`. */
export const HOST_PATH_PROVISIONER = 'svc.io/host-path';
/** The class `svc up` makes default (k3s's name for its local-path class). */
export const HOST_PATH_STORAGE_CLASS = 'local-path';

/** Whether a StorageClass is marked default (either key, `"true"`). */
export function isDefaultStorageClass(annotations: Readonly<Record<string, string>> | undefined): boolean {
  return annotations?.[DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true' || annotations?.[BETA_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true';
}
