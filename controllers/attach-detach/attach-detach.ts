import { createHash } from 'node:crypto';
import { filter, from, interval, map, mergeMap, type Observable } from 'rxjs';
import { isStatusError, podClaims, type PersistentVolume, type Pod, type VolumeAttachment } from '../../src/api/index.js';
import { builtin, indexOn, sameMembers, type InformerEvent } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { cacheOnly } from '../cache-only.js';

export interface AttachDetachOptions {
  /** `--attach-detach-reconcile-sync-period` (1 m): every node's attachments are compared again this often. */
  readonly reconcileSyncPeriodMs: number;
  /** `--disable-attach-detach-reconcile-sync`: no periodic pass, only events. */
  readonly disableReconcileSync: boolean;
}

// Upstream's controller name (`--controllers` also accepts `attachdetach`).
const NAME = 'attachdetach-controller';

/** Upstream's VolumeAttachment name: `csi-` and the SHA-256 of volume handle, attacher and node. */
export function volumeAttachmentName(volumeHandle: string, attacher: string, nodeName: string): string {
  return `csi-${createHash('sha256').update(`${volumeHandle}${attacher}${nodeName}`).digest('hex')}`;
}

const running = (pod: Pod): boolean => pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';

/**
 * The pods that use a claim, by the node they are bound to: only they can need an attachment. A
 * node's reconcile reads these, not every pod on the node — with hundreds of pods a node and none
 * using a claim, each pod's change made the loop read all of its node's pods (the manager's
 * largest cost at 375 pods a node: bench:manager-fill with NODES=100).
 */
const CLAIM_NODE_INDEX = 'attach-detach/claims-by-node';
const claimNodeIndex = indexOn<Pod>(['spec'], (pod) => (pod.spec.nodeName && podClaims(pod).length > 0 ? [pod.spec.nodeName] : []));

/** The node whose attachments a pod event may change: that of a bound pod using a claim, before or after the change. */
function nodeOfClaimingPod(event: InformerEvent<Pod>): string | undefined {
  // A status write leaves the spec as it was: the old version says what the new one said.
  if (event.type === 'updated') return claimNodeIndex(event.object)[0] ?? (sameMembers(event.old, event.object, ['spec']) ? undefined : claimNodeIndex(event.old)[0]);
  return claimNodeIndex(event.object)[0];
}

/**
 * Attach and detach, per node: a CSI volume used by a pod scheduled to a node gets a
 * VolumeAttachment (attacher: the CSI driver) for its external attacher to act on; one no pod
 * there uses any more is deleted. Host-path and local volumes are not attachable — there is
 * nothing to attach, so they get no VolumeAttachment and appear in no node's
 * `status.volumesAttached` (which is what `kubectl describe` shows for them). Triggers: pods (by
 * node), VolumeAttachments (by node), and the periodic reconcile unless disabled.
 */
export function attachDetachController(ctx: ControllerContext, options: AttachDetachOptions): Observable<ControllerResult<unknown>> {
  // The pods using a claim, indexed by node (on the one shared pod cache): a node's reconcile reads
  // those of its own, where reading every pod made the periodic pass nodes × pods.
  const pods = ctx.informers.informer(builtin.pods, { indexers: { [CLAIM_NODE_INDEX]: claimNodeIndex } });
  const claims = ctx.informers.informer(builtin.persistentVolumeClaims);
  const volumes = ctx.informers.informer(builtin.persistentVolumes);
  const attachments = ctx.informers.informer(builtin.volumeAttachments);
  const nodes = ctx.informers.informer(builtin.nodes);

  /** The CSI volumes the pods on `node` use, by attachment name. */
  const desired = (node: string): Map<string, PersistentVolume> => {
    const wanted = new Map<string, PersistentVolume>();
    for (const pod of pods.store.byIndex(CLAIM_NODE_INDEX, node)) {
      if (!running(pod)) continue;
      for (const { claimName } of podClaims(pod)) {
        const claim = claims.store.get(`${pod.metadata.namespace ?? ''}/${claimName}`);
        const volume = claim?.spec.volumeName ? volumes.store.get(claim.spec.volumeName) : undefined;
        const csi = volume?.spec.csi;
        if (!volume || !csi) continue;
        wanted.set(volumeAttachmentName(csi.volumeHandle, csi.driver, node), volume);
      }
    }
    return wanted;
  };

  const periodic =
    options.disableReconcileSync || options.reconcileSyncPeriodMs <= 0
      ? from([] as string[])
      : interval(options.reconcileSyncPeriodMs).pipe(mergeMap(() => [...nodes.store.keys()]));

  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: { events$: nodes.events$, synced$: nodes.synced$ },
    watches: [
      { events$: pods.events$.pipe(map(nodeOfClaimingPod), filter((node): node is string => node !== undefined)), synced$: pods.synced$ },
      { events$: attachments.events$.pipe(map((event) => event.object.spec.nodeName)), synced$: attachments.synced$ },
      cacheOnly(claims),
      cacheOnly(volumes),
      periodic,
    ],
    reconcile: async (node) => {
      const wanted = desired(node);
      const present = new Map<string, VolumeAttachment>();
      for (const attachment of attachments.store.list()) if (attachment.spec.nodeName === node) present.set(attachment.metadata.name ?? '', attachment);
      for (const [name, volume] of wanted) {
        if (present.has(name)) continue;
        const csi = volume.spec.csi!;
        try {
          await ctx.client.create(builtin.volumeAttachments, {
            apiVersion: 'storage.k8s.io/v1',
            kind: 'VolumeAttachment',
            metadata: { name },
            spec: { attacher: csi.driver, nodeName: node, source: { persistentVolumeName: volume.metadata.name ?? '' } },
          });
        } catch (error) {
          if (!(isStatusError(error) && error.code === 409)) throw error;
        }
      }
      for (const [name, attachment] of present) {
        if (wanted.has(name) || attachment.metadata.deletionTimestamp) continue;
        try {
          await ctx.client.delete(builtin.volumeAttachments, name);
        } catch (error) {
          if (!isStatusError(error, 'NotFound')) throw error;
        }
      }
    },
  });
}
