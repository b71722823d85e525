import { mkdir, rm } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  HOST_PATH_PROVISIONER,
  HOSTNAME_LABEL,
  isStatusError,
  PROVISIONED_BY_ANNOTATION,
  StatusError,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { bytesOf, requestedBytes } from '../volume-matching/index.js';

/** The class parameter that caps a claim's size (a quantity); without it any size is provisioned. */
export const MAX_SIZE_PARAMETER = 'maxSize';

/** Where provisioned directories live when nothing says otherwise (upstream's host-path provisioner uses /tmp too). */
export const DEFAULT_HOST_PATH_ROOT = '/tmp/svc-hostpath-pv';

/**
 * svc's host-path provisioner, the way k3s ships local-path: a claim of a class whose provisioner
 * is `svc.io/host-path` gets a directory under the root, on the host the controller manager runs
 * on, and a PersistentVolume pre-bound to it (hostPath, node affinity by `svc.io/hostname` to the node its
 * first pod was scheduled to). Reclaim Delete removes the directory, then the volume. For `svc up` and single
 * hosts: the directory is made where this process runs, so the node must be that host
 * ([persistent-volumes.md](../../docs/persistent-volumes.md)).
 */
export class HostPathProvisioner {
  readonly root: string;

  constructor(
    private readonly client: Client,
    root: string = DEFAULT_HOST_PATH_ROOT,
  ) {
    this.root = resolve(root);
  }

  /** The volume name of a claim's provisioned volume (upstream's `pvc-<claim uid>`). */
  static volumeName(claim: PersistentVolumeClaim): string {
    return `pvc-${claim.metadata.uid ?? ''}`;
  }

  /** Why this class cannot provision `claim`, or undefined (checked before anything is made). */
  refusal(claim: PersistentVolumeClaim, storageClass: StorageClass): string | undefined {
    const want = requestedBytes(claim);
    if (want === undefined) return `the claim's storage request ${JSON.stringify(claim.spec.resources.requests.storage)} is not a size`;
    const capText = storageClass.parameters?.[MAX_SIZE_PARAMETER];
    if (capText !== undefined) {
      const cap = bytesOf(capText);
      if (cap === undefined) return `storage class ${storageClass.metadata.name}: parameter ${MAX_SIZE_PARAMETER} ${JSON.stringify(capText)} is not a size`;
      if (want > cap) return `the claim asks for ${String(claim.spec.resources.requests.storage)}, more than storage class ${storageClass.metadata.name} allows (${MAX_SIZE_PARAMETER} ${capText})`;
    }
    if (claim.spec.volumeMode === 'Block') return 'host-path volumes are directories: volumeMode Block is not supported';
    return undefined;
  }

  /**
   * Makes the claim's directory and its PersistentVolume, pre-bound to the claim. A volume that
   * exists already (an earlier attempt whose answer was lost) is returned as it is. When the
   * volume cannot be created the directory is removed again: nothing half-made is left.
   */
  async provision(claim: PersistentVolumeClaim, storageClass: StorageClass, nodeName: string | undefined): Promise<PersistentVolume> {
    const refusal = this.refusal(claim, storageClass);
    if (refusal) throw new StatusError({ reason: 'Invalid', code: 422, message: refusal });
    const name = HostPathProvisioner.volumeName(claim);
    const path = join(this.root, `${name}_${claim.metadata.namespace ?? ''}_${claim.metadata.name ?? ''}`);
    await mkdir(path, { recursive: true, mode: 0o777 });
    const volume: PersistentVolume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, annotations: { [PROVISIONED_BY_ANNOTATION]: HOST_PATH_PROVISIONER } },
      spec: {
        capacity: { storage: String(claim.spec.resources.requests.storage) },
        accessModes: [...claim.spec.accessModes],
        persistentVolumeReclaimPolicy: storageClass.reclaimPolicy ?? 'Delete',
        storageClassName: storageClass.metadata.name ?? '',
        volumeMode: 'Filesystem',
        hostPath: { path, type: 'DirectoryOrCreate' },
        claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace ?? '', name: claim.metadata.name ?? '', uid: claim.metadata.uid ?? '' },
        ...(storageClass.mountOptions ? { mountOptions: [...storageClass.mountOptions] } : {}),
        ...(nodeName
          ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: HOSTNAME_LABEL, operator: 'In', values: [nodeName] }] }] } } }
          : {}),
      },
    };
    try {
      return await this.client.create(builtin.persistentVolumes, volume);
    } catch (error) {
      if (isStatusError(error) && error.code === 409) return this.client.get(builtin.persistentVolumes, name);
      await rm(path, { recursive: true, force: true });
      throw error;
    }
  }

  /** Whether this provisioner made `volume` (and so deletes it). */
  static provisioned(volume: PersistentVolume): boolean {
    return volume.metadata.annotations?.[PROVISIONED_BY_ANNOTATION] === HOST_PATH_PROVISIONER;
  }

  /**
   * Removes a provisioned volume's directory, then the volume. A path outside the root is never
   * removed (a volume edited to point elsewhere): the volume is refused instead.
   */
  async delete(volume: PersistentVolume): Promise<void> {
    const path = volume.spec.hostPath?.path;
    if (path !== undefined) {
      const inside = relative(this.root, resolve(path));
      if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
        throw new StatusError({ reason: 'Forbidden', code: 403, message: `host path ${path} is not under the provisioner's root ${this.root}: not deleted` });
      }
      await rm(path, { recursive: true, force: true });
    }
    try {
      await this.client.delete(builtin.persistentVolumes, volume.metadata.name ?? '', { preconditions: { uid: volume.metadata.uid ?? '' } });
    } catch (error) {
      if (!(isStatusError(error) && (error.code === 404 || error.code === 409))) throw error;
    }
  }
}
