import { ephemeralClaimName, type Pod } from '../../api/index.js';
import { checkHostPath } from './host-path.js';
import type { PodObjectReader } from './object-reader.js';
import { hostPathVolumeSourceSchema, parseSource } from './sources.js';

type Volume = NonNullable<Pod['spec']['volumes']>[number];

/** A claim's volume as containers mount it: the host directory, and whether the claim is mounted read-only. */
export interface ClaimMount {
  readonly hostPath: string;
  readonly readOnly: boolean;
}

/**
 * A `persistentVolumeClaim` or generic `ephemeral` volume, resolved to the directory its bound
 * PersistentVolume names on this host: `hostPath` (made when missing, as `DirectoryOrCreate`
 * says; the host-path provisioner's volumes are these) or `local` (must exist). Containers get
 * it as a bind mount of that directory. A claim that does not exist yet or is not bound is an
 * error the pod worker retries (FailedMount), which is how the agent waits for the binder; an
 * ephemeral volume's claim must be controlled by this pod. Other volume types are not mounted by
 * this agent ([node-agent.md](../../../docs/node-agent.md#claims)).
 */
export async function claimVolume(volume: Volume, pod: Pod, objects: PodObjectReader): Promise<ClaimMount> {
  const namespace = pod.metadata.namespace ?? 'default';
  const ephemeral = volume.persistentVolumeClaim === undefined;
  const claimName = volume.persistentVolumeClaim?.claimName ?? ephemeralClaimName(pod.metadata.name ?? '', volume.name);
  if (!objects.persistentVolumeClaim || !objects.persistentVolume) throw new Error('this node agent reads no PersistentVolumeClaims');
  const claim = await objects.persistentVolumeClaim(namespace, claimName);
  if (!claim) throw new Error(`persistentvolumeclaim "${claimName}" not found`);
  if (ephemeral && !claim.metadata.ownerReferences?.some((ref) => ref.controller === true && ref.uid === pod.metadata.uid)) {
    throw new Error(`PVC ${namespace}/${claimName} was not created for pod ${namespace}/${pod.metadata.name ?? ''} (pod is not owner)`);
  }
  if (claim.metadata.deletionTimestamp) throw new Error(`persistentvolumeclaim "${claimName}" is being deleted`);
  const volumeName = claim.spec.volumeName;
  if (!volumeName || claim.status?.phase !== 'Bound') throw new Error(`persistentvolumeclaim "${claimName}" is not bound yet`);
  const bound = await objects.persistentVolume(volumeName);
  if (!bound) throw new Error(`persistentvolume "${volumeName}" of claim "${claimName}" not found`);
  const readOnly = volume.persistentVolumeClaim?.readOnly === true;
  if (bound.spec.hostPath) {
    const source = parseSource(hostPathVolumeSourceSchema, bound.spec.hostPath);
    if (!source.ok) throw new Error(`persistentvolume "${volumeName}": invalid hostPath: ${source.message}`);
    await checkHostPath(source.value.path, source.value.type);
    return { hostPath: source.value.path, readOnly };
  }
  if (bound.spec.local) {
    await checkHostPath(bound.spec.local.path, 'Directory');
    return { hostPath: bound.spec.local.path, readOnly };
  }
  const kind = Object.keys(bound.spec).find((key) => ['nfs', 'csi', 'iscsi', 'rbd', 'cephfs', 'fc', 'flexVolume'].includes(key)) ?? 'unknown';
  throw new Error(`persistentvolume "${volumeName}" is a ${kind} volume: this node agent mounts only hostPath and local volumes`);
}
