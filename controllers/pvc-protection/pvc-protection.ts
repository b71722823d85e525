import { filter, mergeMap, type Observable } from 'rxjs';
import { isStatusError, podClaims, PVC_PROTECTION_FINALIZER, type PersistentVolumeClaim, type Pod } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { CLAIM_INDEX, podClaimKeys, podsByClaim } from '../volume-matching/index.js';

// Upstream's controller name (`--controllers` also accepts `pvc-protection`).
const NAME = 'persistentvolumeclaim-protection-controller';

/** Whether a pod still holds its claims: one not finished (a pod being deleted still runs until it is gone). */
const holdsClaims = (pod: Pod): boolean => pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';

/**
 * Storage object in use protection for claims: every claim carries `kubernetes.io/pvc-protection`
 * (added here when missing), and a deleted claim keeps it while a pod that is not finished uses
 * the claim, by `persistentVolumeClaim` or as its generic ephemeral volume. Once none does, the
 * finalizer goes and the API server completes the deletion. Triggers: claims, and pods (a pod's
 * change or deletion wakes the claims it uses).
 */
export function pvcProtectionController(ctx: ControllerContext): Observable<ControllerResult<unknown>> {
  const claims = ctx.informers.informer(builtin.persistentVolumeClaims);
  const pods = podsByClaim(ctx.informers);
  const usedBy = (key: string): Pod[] => pods.store.byIndex(CLAIM_INDEX, key);

  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: claims,
    watches: [
      {
        events$: pods.events$.pipe(
          filter((event) => event.type !== 'resync'),
          mergeMap((event) => podClaimKeys(event.object)),
        ),
        synced$: pods.synced$,
      },
    ],
    reconcile: async (key) => {
      const claim = claims.store.get(key);
      if (!claim) return;
      const finalizers = claim.metadata.finalizers ?? [];
      const has = finalizers.includes(PVC_PROTECTION_FINALIZER);
      if (!claim.metadata.deletionTimestamp) {
        if (!has) await setFinalizers(claim, [...finalizers, PVC_PROTECTION_FINALIZER]);
        return;
      }
      if (!has) return;
      if (usedBy(key).some(holdsClaims)) return;
      // The cache may be behind a pod just created: ask the server before letting the claim go.
      const live = await ctx.client.list(builtin.pods, { namespace: claim.metadata.namespace });
      if (live.items.some((pod) => holdsClaims(pod) && podClaims(pod).some((c) => c.claimName === claim.metadata.name))) return;
      await setFinalizers(claim, finalizers.filter((f) => f !== PVC_PROTECTION_FINALIZER));
    },
  });

  async function setFinalizers(claim: PersistentVolumeClaim, finalizers: string[]): Promise<void> {
    try {
      await ctx.client.patch(
        builtin.persistentVolumeClaims,
        claim.metadata.name ?? '',
        { metadata: { resourceVersion: claim.metadata.resourceVersion, finalizers } },
        { type: 'merge', namespace: claim.metadata.namespace },
      );
    } catch (error) {
      if (isStatusError(error, 'NotFound')) return;
      throw error;
    }
  }
}
