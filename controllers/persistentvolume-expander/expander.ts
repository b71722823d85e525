import { type Observable } from 'rxjs';
import type { PersistentVolumeClaim } from '../../src/api/index.js';
import { builtin, type InvolvedObject } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { cacheOnly } from '../cache-only.js';
import { HostPathProvisioner } from '../host-path-provisioner/index.js';
import { bytesOf, classOf } from '../volume-matching/index.js';

// Upstream's controller name (`--controllers` also accepts `persistentvolume-expander`).
const NAME = 'persistentvolume-expander-controller';
/** On a claim whose volume an external resizer must grow (upstream's key). */
export const STORAGE_RESIZER_ANNOTATION = 'volume.kubernetes.io/storage-resizer';

const claimAbout = (claim: PersistentVolumeClaim): InvolvedObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  name: claim.metadata.name ?? '',
  namespace: claim.metadata.namespace,
  uid: claim.metadata.uid,
});

/**
 * Volume expansion: a bound claim whose `spec.resources.requests.storage` grew past its
 * `status.capacity` is resized when its class says `allowVolumeExpansion: true`. Host-path volumes
 * (this process's provisioner) have no size to grow on disk: the volume's capacity is raised, then
 * the claim's `status.capacity` and `allocatedResources` in one write, with no condition left
 * (no file system resize is pending on the node). A volume of another
 * provisioner is annotated for its external resizer. Shrinking is refused by the API server.
 */
export function persistentVolumeExpander(ctx: ControllerContext): Observable<ControllerResult<unknown>> {
  const claims = ctx.informers.informer(builtin.persistentVolumeClaims);
  const volumes = ctx.informers.informer(builtin.persistentVolumes);
  const classes = ctx.informers.informer(builtin.storageClasses);
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: claims,
    watches: [cacheOnly(volumes), cacheOnly(classes)],
    reconcile: async (key) => {
      const claim = claims.store.get(key);
      if (!claim || claim.metadata.deletionTimestamp || claim.status?.phase !== 'Bound' || !claim.spec.volumeName) return;
      const wanted = claim.spec.resources.requests.storage;
      const want = bytesOf(wanted);
      const have = bytesOf(claim.status.capacity?.['storage']);
      if (want === undefined || have === undefined || want <= have) return;
      const volume = volumes.store.get(claim.spec.volumeName);
      if (!volume) return;
      const storageClass = classes.store.get(classOf(claim));
      const namespace = claim.metadata.namespace;
      if (!storageClass?.allowVolumeExpansion) {
        ctx.events.record(claimAbout(claim), 'Warning', 'VolumeResizeFailed', `storage class ${JSON.stringify(classOf(claim))} does not allow volume expansion`);
        return;
      }
      if (!HostPathProvisioner.provisioned(volume)) {
        if (claim.metadata.annotations?.[STORAGE_RESIZER_ANNOTATION] !== storageClass.provisioner) {
          await ctx.client.patch(builtin.persistentVolumeClaims, claim.metadata.name ?? '', { metadata: { annotations: { [STORAGE_RESIZER_ANNOTATION]: storageClass.provisioner } } }, { type: 'merge', namespace });
          ctx.events.record(claimAbout(claim), 'Normal', 'ExternalExpanding', `waiting for an external controller to expand this PVC`);
        }
        return;
      }
      if ((bytesOf(volume.spec.capacity.storage) ?? 0) < want) {
        await ctx.client.patch(builtin.persistentVolumes, volume.metadata.name ?? '', { spec: { capacity: { storage: wanted } } }, { type: 'merge' });
      }
      // A directory has no size of its own: nothing to grow on the node, so the claim is done in
      // one status write (a second run from a cache that has not seen it yet writes the same).
      await ctx.client.patchStatus(
        builtin.persistentVolumeClaims,
        claim.metadata.name ?? '',
        { status: { capacity: { storage: wanted }, allocatedResources: { storage: wanted }, conditions: null } },
        { type: 'merge', namespace },
      );
      ctx.events.record(claimAbout(claim), 'Normal', 'VolumeResizeSuccessful', `resize volume ${volume.metadata.name ?? ''} to ${String(wanted)} succeeded (host-path: no file system to grow)`);
    },
  });
}
