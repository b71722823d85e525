import { from, interval, merge, mergeMap, type Observable } from 'rxjs';
import {
  BETA_STORAGE_PROVISIONER_ANNOTATION,
  BIND_COMPLETED_ANNOTATION,
  BOUND_BY_CONTROLLER_ANNOTATION,
  HOST_PATH_PROVISIONER,
  isStatusError,
  rfc3339,
  SELECTED_NODE_ANNOTATION,
  STORAGE_PROVISIONER_ANNOTATION,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../../src/api/index.js';
import { builtin, objectKey, type InvolvedObject } from '../../src/client/index.js';
import { cacheOnly } from '../cache-only.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { requeueAfter, type RequeueAfter } from '../../operators/index.js';
import { HostPathProvisioner } from '../host-path-provisioner/index.js';
import { bestVolume, classOf, preBoundTo, waitsForFirstConsumer } from '../volume-matching/index.js';
import { Recycler, type RecyclerOptions } from './recycler.js';

export interface PersistentVolumeBinderOptions {
  /** `--pvclaimbinder-sync-period`: every claim and volume is looked at again this often (15 s). */
  readonly syncPeriodMs: number;
  /** `--enable-dynamic-provisioning` (true): claims of a class with a provisioner get a volume made for them. */
  readonly dynamicProvisioning: boolean;
  /** `--enable-hostpath-provisioner`: the in-process host-path provisioner, writing under this root; undefined: off. */
  readonly hostPath?: HostPathProvisioner | undefined;
  /** How Recycle reclaims (the scrubber pod's template and deadlines). */
  readonly recycler?: RecyclerOptions | undefined;
  readonly concurrency?: number | undefined;
}

// Upstream's controller name (`--controllers` also accepts `persistentvolume-binder`).
const NAME = 'persistentvolume-binder-controller';
const RECYCLE_POLL_MS = 2_000;

const claimAbout = (claim: PersistentVolumeClaim): InvolvedObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  name: claim.metadata.name ?? '',
  namespace: claim.metadata.namespace,
  uid: claim.metadata.uid,
});
const volumeAbout = (volume: PersistentVolume): InvolvedObject => ({ apiVersion: 'v1', kind: 'PersistentVolume', name: volume.metadata.name ?? '', uid: volume.metadata.uid });

/**
 * The PersistentVolume binder: claims to volumes and back, as kube's `persistentvolume-binder`.
 *
 * - A claim binds to the volume `bestVolume` picks (pre-bound first, else the smallest that
 *   fits); the volume's `claimRef` is written first, then the claim's `volumeName`, then both
 *   phases `Bound`. A claim of a `WaitForFirstConsumer` class waits for the scheduler: it binds
 *   to the volume the scheduler wrote its `claimRef` on, or, once the scheduler has written
 *   `volume.kubernetes.io/selected-node`, to a volume that suits that node (else it is provisioned there).
 * - With no volume that fits, a class with a provisioner provisions: the host-path provisioner
 *   in-process, any other is left to its external provisioner (the claim annotated with its name).
 * - A volume whose claim is gone is `Released` and reclaimed by its policy: Retain keeps it,
 *   Delete deletes it (and its directory, for host-path volumes this process made), Recycle
 *   scrubs it with a pod and makes it Available again.
 *
 * Two work queues, as upstream's claim and volume workers: claims keyed `namespace/name`, volumes
 * by name; each also wakes the other side, and every key is looked at again each sync period.
 */
export function persistentVolumeBinder(ctx: ControllerContext, options: PersistentVolumeBinderOptions): Observable<ControllerResult<unknown>> {
  const claims = ctx.informers.informer(builtin.persistentVolumeClaims);
  const volumes = ctx.informers.informer(builtin.persistentVolumes);
  const classes = ctx.informers.informer(builtin.storageClasses);
  const nodes = ctx.informers.informer(builtin.nodes);
  const recycler = new Recycler(ctx, options.recycler ?? {});

  const record = ctx.events.record.bind(ctx.events);
  const claimEvent = (claim: PersistentVolumeClaim, type: 'Normal' | 'Warning', reason: string, message: string) => record(claimAbout(claim), type, reason, message);
  const volumeEvent = (volume: PersistentVolume, type: 'Normal' | 'Warning', reason: string, message: string) => record(volumeAbout(volume), type, reason, message);

  const setVolumePhase = async (volume: PersistentVolume, phase: NonNullable<PersistentVolume['status']>['phase'], message?: string, reason?: string): Promise<void> => {
    const status = volume.status ?? {};
    if (status.phase === phase && (status.message ?? undefined) === message && (status.reason ?? undefined) === reason) return;
    await ctx.client.patchStatus(
      builtin.persistentVolumes,
      volume.metadata.name ?? '',
      {
        metadata: { resourceVersion: volume.metadata.resourceVersion },
        status: { phase, message: message ?? null, reason: reason ?? null, ...(status.phase !== phase ? { lastPhaseTransitionTime: rfc3339() } : {}) },
      },
      { type: 'merge' },
    );
  };

  const setClaimBound = async (claim: PersistentVolumeClaim, volume: PersistentVolume): Promise<void> => {
    const status = claim.status ?? {};
    const capacity = volume.spec.capacity;
    if (status.phase === 'Bound' && status.capacity?.['storage'] === capacity.storage && sameList(status.accessModes, volume.spec.accessModes)) return;
    await ctx.client.patchStatus(
      builtin.persistentVolumeClaims,
      claim.metadata.name ?? '',
      { status: { phase: 'Bound', accessModes: volume.spec.accessModes, capacity: { ...capacity } } },
      { type: 'merge', namespace: claim.metadata.namespace },
    );
  };

  /** Binds volume and claim: the volume's claimRef first (a volume is claimed once), then the claim's volumeName. */
  const bind = async (claim: PersistentVolumeClaim, volume: PersistentVolume): Promise<void> => {
    let bound = volume;
    if (!volume.spec.claimRef?.uid) {
      bound = await ctx.client.patch(
        builtin.persistentVolumes,
        volume.metadata.name ?? '',
        {
          metadata: { resourceVersion: volume.metadata.resourceVersion, annotations: { [BOUND_BY_CONTROLLER_ANNOTATION]: 'yes' } },
          spec: { claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid, resourceVersion: claim.metadata.resourceVersion } },
        },
        { type: 'merge' },
      );
    }
    await setVolumePhase(bound, 'Bound');
    let updated = claim;
    if (claim.spec.volumeName !== volume.metadata.name || claim.metadata.annotations?.[BIND_COMPLETED_ANNOTATION] !== 'yes') {
      updated = await ctx.client.patch(
        builtin.persistentVolumeClaims,
        claim.metadata.name ?? '',
        {
          metadata: {
            resourceVersion: claim.metadata.resourceVersion,
            annotations: { [BIND_COMPLETED_ANNOTATION]: 'yes', ...(claim.spec.volumeName ? {} : { [BOUND_BY_CONTROLLER_ANNOTATION]: 'yes' }) },
          },
          spec: { volumeName: volume.metadata.name },
        },
        { type: 'merge', namespace: claim.metadata.namespace },
      );
    }
    await setClaimBound(updated, bound);
  };

  const provision = async (claim: PersistentVolumeClaim, storageClass: StorageClass, selectedNode: string | undefined): Promise<void> => {
    const provisioner = storageClass.provisioner;
    if (provisioner === HOST_PATH_PROVISIONER && options.hostPath) {
      const refusal = options.hostPath.refusal(claim, storageClass);
      if (refusal) {
        claimEvent(claim, 'Warning', 'ProvisioningFailed', `Failed to provision volume with StorageClass "${storageClass.metadata.name}": ${refusal}`);
        return;
      }
      const volume = await options.hostPath.provision(claim, storageClass, selectedNode);
      claimEvent(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${volume.metadata.name} using ${HOST_PATH_PROVISIONER}`);
      await bind(claim, volume);
      return;
    }
    // Someone else's provisioner (or ours, switched off): say which one the claim waits for.
    if (claim.metadata.annotations?.[STORAGE_PROVISIONER_ANNOTATION] !== provisioner) {
      await ctx.client.patch(
        builtin.persistentVolumeClaims,
        claim.metadata.name ?? '',
        { metadata: { annotations: { [STORAGE_PROVISIONER_ANNOTATION]: provisioner, [BETA_STORAGE_PROVISIONER_ANNOTATION]: provisioner } } },
        { type: 'merge', namespace: claim.metadata.namespace },
      );
    }
    claimEvent(claim, 'Normal', 'ExternalProvisioning', `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator`);
  };

  const syncClaim = async (key: string): Promise<void> => {
    const claim = claims.store.get(key);
    if (!claim || claim.metadata.deletionTimestamp) return;
    const volumeName = claim.spec.volumeName;
    if (volumeName) {
      const volume = volumes.store.get(volumeName);
      if (!volume) {
        if (claim.status?.phase === 'Bound') {
          await ctx.client.patchStatus(builtin.persistentVolumeClaims, claim.metadata.name ?? '', { status: { phase: 'Lost' } }, { type: 'merge', namespace: claim.metadata.namespace });
          claimEvent(claim, 'Warning', 'ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
        }
        return;
      }
      if (volume.spec.claimRef?.uid && !preBoundTo(volume, claim)) {
        claimEvent(claim, 'Warning', 'FailedBinding', `volume "${volumeName}" already bound to a different claim.`);
        return;
      }
      await bind(claim, volume);
      return;
    }
    // A class need not exist for static binding (upstream: only provisioning and delayed binding read it).
    const className = classOf(claim);
    const storageClass = className === '' ? undefined : classes.store.get(className);
    const selectedNode = claim.metadata.annotations?.[SELECTED_NODE_ANNOTATION];
    const delayed = waitsForFirstConsumer(storageClass);
    if (delayed && !selectedNode) {
      // The scheduler binds a waiting claim by writing a volume's claimRef: that one is bound now.
      const chosen = volumes.store.list().find((v) => preBoundTo(v, claim) && v.spec.claimRef?.uid !== undefined);
      if (chosen) {
        await bind(claim, chosen);
        return;
      }
      claimEvent(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
      await setClaimPending(claim);
      return;
    }
    const node = delayed && selectedNode ? nodes.store.get(selectedNode) : undefined;
    const volume = bestVolume(claim, volumes.store.list(), node);
    if (volume) {
      await bind(claim, volume);
      return;
    }
    await setClaimPending(claim);
    if (className !== '' && !storageClass) {
      claimEvent(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      return;
    }
    if (storageClass && options.dynamicProvisioning) {
      await provision(claim, storageClass, selectedNode);
      return;
    }
    claimEvent(claim, 'Normal', 'FailedBinding', storageClass ? 'no persistent volumes available for this claim and dynamic provisioning is off' : 'no persistent volumes available for this claim and no storage class is set');
  };

  const setClaimPending = async (claim: PersistentVolumeClaim): Promise<void> => {
    if (claim.status?.phase === 'Pending') return;
    await ctx.client.patchStatus(builtin.persistentVolumeClaims, claim.metadata.name ?? '', { status: { phase: 'Pending' } }, { type: 'merge', namespace: claim.metadata.namespace });
  };

  const syncVolume = async (name: string): Promise<RequeueAfter<unknown> | undefined> => {
    const volume = volumes.store.get(name);
    if (!volume || volume.metadata.deletionTimestamp) return;
    const ref = volume.spec.claimRef;
    if (!ref) {
      await setVolumePhase(volume, 'Available');
      return;
    }
    const claim = claims.store.get(`${ref.namespace ?? ''}/${ref.name ?? ''}`);
    if (!ref.uid) {
      // Pre-bound by its author to a claim by name: the claim's sync binds it; until then it waits.
      if (volume.status?.phase !== 'Bound') await setVolumePhase(volume, 'Available');
      return;
    }
    if (claim && claim.metadata.uid === ref.uid) {
      // Bound from the volume's side: the claim's sync finishes it (or it is done).
      await setVolumePhase(volume, 'Bound');
      return;
    }
    // The claim is gone (or is another claim of the same name): reclaim by policy.
    if (volume.status?.phase === 'Failed') return;
    const policy = volume.spec.persistentVolumeReclaimPolicy ?? 'Retain';
    if (volume.status?.phase !== 'Released') {
      await setVolumePhase(volume, 'Released');
      return; // the status write wakes this volume again, with a fresh resourceVersion
    }
    if (policy === 'Retain') return;
    if (policy === 'Delete') {
      if (HostPathProvisioner.provisioned(volume)) {
        if (!options.hostPath) return; // made by a provisioner that is now off: it stays Released
        try {
          await options.hostPath.delete(volume);
        } catch (error) {
          if (!isStatusError(error) || error.code !== 403) throw error;
          volumeEvent(volume, 'Warning', 'VolumeFailedDelete', error.message);
          await setVolumePhase(volume, 'Failed', error.message, 'VolumeFailedDelete');
        }
        return;
      }
      const external = volume.metadata.annotations?.['pv.kubernetes.io/provisioned-by'];
      if (external) return; // its external provisioner deletes it
      const message = 'error getting deleter volume plugin for volume: no deletable volume plugin matched';
      volumeEvent(volume, 'Warning', 'VolumeFailedDelete', message);
      await setVolumePhase(volume, 'Failed', message, 'VolumeFailedDelete');
      return;
    }
    // Recycle.
    const outcome = await recycler.recycle(volume);
    // The scrubber pod is polled, not watched: a binder watching every pod for a rare Recycle costs more.
    if (outcome.type === 'running') return requeueAfter(RECYCLE_POLL_MS);
    if (outcome.type === 'failed') {
      volumeEvent(volume, 'Warning', 'VolumeFailedRecycle', outcome.message);
      await setVolumePhase(volume, 'Failed', outcome.message, 'VolumeFailedRecycle');
      return;
    }
    volumeEvent(volume, 'Normal', 'VolumeRecycled', `Volume recycled`);
    // Free again: the claimRef goes, the phase is Available.
    const freed = await ctx.client.patch(builtin.persistentVolumes, name, { metadata: { resourceVersion: volume.metadata.resourceVersion }, spec: { claimRef: null } }, { type: 'merge' });
    await setVolumePhase(freed, 'Available');
    return undefined;
  };

  const every = (keys: () => Iterable<string>) => (options.syncPeriodMs > 0 ? interval(options.syncPeriodMs).pipe(mergeMap(() => from([...keys()]))) : from([]));

  // A volume's change wakes its claim; a claim's change wakes its volume and, while unbound, every
  // claim of its class could change nothing: only volume and class events wake unbound claims.
  const volumeToClaim = volumes.events$.pipe(
    mergeMap((event) => {
      const ref = event.object.spec.claimRef;
      if (ref) return [`${ref.namespace ?? ''}/${ref.name ?? ''}`];
      // A free volume may suit any unbound claim.
      return claims.store.list().filter((c) => !c.spec.volumeName).map(objectKey);
    }),
  );
  const classToClaims = classes.events$.pipe(mergeMap((event) => claims.store.list().filter((c) => !c.spec.volumeName && classOf(c) === event.object.metadata.name).map(objectKey)));
  const claimToVolume = claims.events$.pipe(
    mergeMap((event) => {
      const bound = event.object.spec.volumeName;
      const keys = bound ? [bound] : [];
      if (event.type === 'deleted') {
        for (const v of volumes.store.list()) if (v.spec.claimRef?.uid && v.spec.claimRef.uid === event.object.metadata.uid && !keys.includes(v.metadata.name ?? '')) keys.push(v.metadata.name ?? '');
      }
      return keys;
    }),
  );

  const claimWorker = controller<unknown>({
    ...ctx.controllerDefaults(`${NAME}-claims`),
    name: `${NAME}-claims`,
    for: claims,
    watches: [
      { events$: volumeToClaim, synced$: volumes.synced$ },
      { events$: classToClaims, synced$: classes.synced$ },
      cacheOnly(nodes),
      every(() => claims.store.keys()),
    ],
    concurrency: options.concurrency ?? 1,
    reconcile: (key) => syncClaim(key),
  });
  const volumeWorker = controller<unknown>({
    ...ctx.controllerDefaults(`${NAME}-volumes`),
    name: `${NAME}-volumes`,
    for: volumes,
    watches: [{ events$: claimToVolume, synced$: claims.synced$ }, every(() => volumes.store.keys())],
    concurrency: options.concurrency ?? 1,
    reconcile: (key) => syncVolume(key),
  });
  return merge(claimWorker, volumeWorker);
}

function sameList(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a !== undefined && a.length === b.length && a.every((item, i) => item === b[i]);
}
