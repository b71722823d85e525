import { map, type Observable } from 'rxjs';
import { isStatusError, PV_PROTECTION_FINALIZER, type PersistentVolume } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';

// Upstream's controller name (`--controllers` also accepts `pv-protection`).
const NAME = 'persistentvolume-protection-controller';

/**
 * Storage object in use protection for volumes: every PersistentVolume carries
 * `kubernetes.io/pv-protection` (added here when missing); a deleted volume keeps it while it is
 * bound to a claim that still exists. Once the claim is gone (or the volume is not bound) the
 * finalizer goes and the deletion completes. Triggers: volumes, and claims (a claim's deletion
 * wakes its volume).
 */
export function pvProtectionController(ctx: ControllerContext): Observable<ControllerResult<unknown>> {
  const volumes = ctx.informers.informer(builtin.persistentVolumes);
  const claims = ctx.informers.informer(builtin.persistentVolumeClaims);

  const inUse = (volume: PersistentVolume): boolean => {
    const ref = volume.spec.claimRef;
    if (!ref || volume.status?.phase !== 'Bound') return false;
    const claim = claims.store.get(`${ref.namespace ?? ''}/${ref.name ?? ''}`);
    return claim !== undefined && (!ref.uid || claim.metadata.uid === ref.uid);
  };

  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: volumes,
    watches: [{ events$: claims.events$.pipe(map((event) => event.object.spec.volumeName ?? '')), synced$: claims.synced$ }],
    reconcile: async (name) => {
      if (name === '') return;
      const volume = volumes.store.get(name);
      if (!volume) return;
      const finalizers = volume.metadata.finalizers ?? [];
      const has = finalizers.includes(PV_PROTECTION_FINALIZER);
      if (!volume.metadata.deletionTimestamp) {
        if (!has) await setFinalizers(volume, [...finalizers, PV_PROTECTION_FINALIZER]);
        return;
      }
      if (!has || inUse(volume)) return;
      await setFinalizers(volume, finalizers.filter((f) => f !== PV_PROTECTION_FINALIZER));
    },
  });

  async function setFinalizers(volume: PersistentVolume, finalizers: string[]): Promise<void> {
    try {
      await ctx.client.patch(builtin.persistentVolumes, volume.metadata.name ?? '', { metadata: { resourceVersion: volume.metadata.resourceVersion, finalizers } }, { type: 'merge' });
    } catch (error) {
      if (isStatusError(error, 'NotFound')) return;
      throw error;
    }
  }
}
