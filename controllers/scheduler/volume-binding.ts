import { filter, firstValueFrom, map, merge, of, Subject, timeout, type Observable } from 'rxjs';
import {
  BIND_COMPLETED_ANNOTATION,
  BOUND_BY_CONTROLLER_ANNOTATION,
  isStatusError,
  podClaims,
  SELECTED_NODE_ANNOTATION,
  type Node,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type Pod,
  type StorageClass,
} from '../../src/api/index.js';
import { builtin, resourceVersionOf, type CacheReader, type Client } from '../../src/client/index.js';
import { bestVolume, classOf, volumeFitsNode, waitsForFirstConsumer } from '../volume-matching/index.js';
import type { FilterPlugin } from './plugin.js';

export const REASON_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';
export const REASON_VOLUME_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const REASON_NO_VOLUME_TO_BIND = "node(s) didn't find available persistent volumes to bind";
/** A class with this provisioner never provisions: its claims bind only to volumes that exist. */
const NO_PROVISIONER = 'kubernetes.io/no-provisioner';
/** kube-scheduler's default `bindTimeoutSeconds`. */
export const DEFAULT_BIND_TIMEOUT_MS = 600_000;

/** The caches the volume binding reads (the scheduler's informers of claims, volumes and classes). */
export interface VolumeBindingCaches {
  readonly claims: CacheReader<PersistentVolumeClaim>;
  readonly volumes: CacheReader<PersistentVolume>;
  readonly classes: CacheReader<StorageClass>;
  readonly nodes: CacheReader<Node>;
}

/** Why the pod's volumes could not be bound on the chosen node: the pod goes back to the queue. */
export class VolumeBindingError extends Error {
  override readonly name = 'VolumeBindingError';
}

const REVISION = /^\d+$/;

/**
 * Whether the cached claim is the version `written` or a later one (`written` undefined: nothing
 * to wait for). svc's resourceVersions are its store's revisions, which grow with every write (as
 * upstream's assume cache reads them); a version that is not one counts as caught up.
 */
function cachedSince(cached: PersistentVolumeClaim, written: string | undefined): boolean {
  const version = resourceVersionOf(cached);
  if (written === undefined || version === undefined || !REVISION.test(version) || !REVISION.test(written)) return true;
  return BigInt(version) >= BigInt(written);
}

/** A claim the binder has finished binding (upstream's isPVCFullyBound). */
const fullyBound = (claim: PersistentVolumeClaim): boolean => Boolean(claim.spec.volumeName) && claim.metadata.annotations?.[BIND_COMPLETED_ANNOTATION] !== undefined;

/**
 * kube-scheduler's VolumeBinding:
 *
 * - a filter: every claim the pod uses exists and is not being deleted; a bound (or pre-bound)
 *   claim's volume suits the node (its node affinity); an unbound claim is one of a
 *   WaitForFirstConsumer class (an Immediate one must be bound by the binder first: the pod stays
 *   unschedulable until it is), and if no volume fits it on this node its class can provision;
 * - before binding the pod (upstream's PreBind): each unbound WaitForFirstConsumer claim is bound
 *   here, to the volume that fits it on the chosen node (the volume's `claimRef`, which the
 *   binder completes), or, with none, annotated `volume.kubernetes.io/selected-node` for its
 *   provisioner. The pod is bound only once every claim it uses is bound; a claim that cannot be
 *   (a volume taken meanwhile, a provisioner that gave the node back, the bind timeout) fails the
 *   attempt and the pod is scheduled again.
 */
export class VolumeBinding {
  readonly #changes = new Subject<void>();

  constructor(
    private readonly caches: VolumeBindingCaches,
    private readonly client: Client,
    private readonly bindTimeoutMs = DEFAULT_BIND_TIMEOUT_MS,
  ) {}

  /** The scheduler calls this on every claim or volume change: waiting pre-binds look again. */
  changed(): void {
    this.#changes.next();
  }

  /** Ends every wait (the scheduler stops): the pods go unbound, for the next leader to schedule. */
  close(): void {
    this.#changes.complete();
  }

  readonly filter: FilterPlugin = {
    name: 'VolumeBinding',
    // An Immediate claim not bound yet: no node can help until the binder binds it (a claim event requeues the pod).
    preFilter: (pod) => {
      const namespace = pod.pod.metadata.namespace ?? '';
      for (const { claimName } of podClaims(pod.pod)) {
        const claim = this.caches.claims.get(`${namespace}/${claimName}`);
        if (claim && !claim.metadata.deletionTimestamp && !fullyBound(claim) && !waitsForFirstConsumer(this.caches.classes.get(classOf(claim)))) return REASON_UNBOUND_IMMEDIATE;
      }
      return undefined;
    },
    filter: (pod, node) => {
      const claims = podClaims(pod.pod);
      if (claims.length === 0) return undefined;
      const namespace = pod.pod.metadata.namespace ?? '';
      for (const { claimName } of claims) {
        const claim = this.caches.claims.get(`${namespace}/${claimName}`);
        if (!claim) return [`persistentvolumeclaim "${claimName}" not found`];
        if (claim.metadata.deletionTimestamp) return [`persistentvolumeclaim "${claimName}" is being deleted`];
        const storageClass = this.caches.classes.get(classOf(claim));
        if (claim.spec.volumeName) {
          const volume = this.caches.volumes.get(claim.spec.volumeName);
          if (volume && node.node && !volumeFitsNode(volume, node.node)) return [REASON_VOLUME_NODE_CONFLICT];
          continue;
        }
        if (!node.node || bestVolume(claim, this.caches.volumes.list(), node.node)) continue;
        if (!storageClass || storageClass.provisioner === NO_PROVISIONER) return [REASON_NO_VOLUME_TO_BIND];
      }
      return undefined;
    },
  };

  /**
   * Binds the pod's unbound WaitForFirstConsumer claims for `nodeName`, then waits until every
   * claim of the pod is bound. Throws VolumeBindingError when that cannot happen.
   */
  async preBind(pod: Pod, nodeName: string): Promise<void> {
    const namespace = pod.metadata.namespace ?? '';
    const keys = podClaims(pod).map(({ claimName }) => `${namespace}/${claimName}`);
    if (keys.length === 0) return;
    const node = this.caches.nodes.get(nodeName);
    // Claims waiting for a provisioner on this node (it gives the node back by removing the
    // annotation), each with the version this pre-bind wrote (undefined: the cache had it already).
    const provisioning = new Map<string, string | undefined>();
    for (const key of keys) {
      const claim = this.caches.claims.get(key);
      if (!claim) throw new VolumeBindingError(`persistentvolumeclaim "${key.slice(namespace.length + 1)}" not found`);
      if (claim.spec.volumeName || !waitsForFirstConsumer(this.caches.classes.get(classOf(claim)))) continue;
      const selected = claim.metadata.annotations?.[SELECTED_NODE_ANNOTATION];
      // A node chosen already (for an earlier pod of a shared claim) stays chosen.
      if (selected !== undefined) {
        if (selected !== nodeName) throw new VolumeBindingError(`persistentvolumeclaim "${claim.metadata.name}" is being provisioned for node ${selected}`);
        provisioning.set(key, undefined);
        continue;
      }
      const volume = node ? bestVolume(claim, this.caches.volumes.list(), node) : undefined;
      if (volume) await this.claimVolume(claim, volume);
      else provisioning.set(key, await this.selectNode(claim, nodeName));
    }
    await this.waitBound(keys, provisioning, nodeName);
  }

  /** Writes the volume's claimRef (upstream's bindAPIUpdate); the binder binds the claim to it. */
  private async claimVolume(claim: PersistentVolumeClaim, volume: PersistentVolume): Promise<void> {
    if (volume.spec.claimRef?.uid === claim.metadata.uid) return;
    try {
      await this.client.patch(
        builtin.persistentVolumes,
        volume.metadata.name ?? '',
        {
          metadata: { resourceVersion: volume.metadata.resourceVersion, annotations: { [BOUND_BY_CONTROLLER_ANNOTATION]: 'yes' } },
          spec: { claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid, resourceVersion: claim.metadata.resourceVersion } },
        },
        { type: 'merge' },
      );
    } catch (error) {
      if (isStatusError(error, 'Conflict') || isStatusError(error, 'NotFound')) throw new VolumeBindingError(`binding volumes: volume "${volume.metadata.name}" changed meanwhile`);
      throw error;
    }
  }

  /** Annotates the claim with the node; answers the resourceVersion written. */
  private async selectNode(claim: PersistentVolumeClaim, nodeName: string): Promise<string | undefined> {
    try {
      const written = await this.client.patch(builtin.persistentVolumeClaims, claim.metadata.name ?? '', { metadata: { annotations: { [SELECTED_NODE_ANNOTATION]: nodeName } } }, { type: 'merge', namespace: claim.metadata.namespace });
      return written.metadata.resourceVersion;
    } catch (error) {
      if (isStatusError(error, 'NotFound')) throw new VolumeBindingError(`persistentvolumeclaim "${claim.metadata.name}" not found`);
      throw error;
    }
  }

  /** Resolves once every claim is bound; rejects when one is gone or given back, or at the bind timeout. */
  private async waitBound(keys: readonly string[], provisioning: ReadonlyMap<string, string | undefined>, nodeName: string): Promise<void> {
    const check = (): string | undefined | 'bound' => {
      for (const key of keys) {
        const claim = this.caches.claims.get(key);
        if (!claim || claim.metadata.deletionTimestamp) return `persistentvolumeclaim "${key.split('/')[1]}" was deleted`;
        if (fullyBound(claim)) continue;
        if (provisioning.has(key) && claim.metadata.annotations?.[SELECTED_NODE_ANNOTATION] !== nodeName) {
          // The cache gets this pre-bind's own annotation after the patch's answer (the watch event
          // is a later frame): a version before it has no annotation yet, and gives nothing back.
          if (!cachedSince(claim, provisioning.get(key))) return undefined;
          return `persistentvolumeclaim "${claim.metadata.name}" was given back by its provisioner`;
        }
        return undefined;
      }
      return 'bound';
    };
    const outcome$: Observable<string> = merge(of(undefined), this.#changes).pipe(
      map(check),
      filter((result): result is string => result !== undefined),
      timeout({ first: this.bindTimeoutMs, with: () => of('binding volumes: timed out waiting for the condition') }),
    );
    const outcome = await firstValueFrom(outcome$, { defaultValue: 'the scheduler stopped' });
    if (outcome !== 'bound') throw new VolumeBindingError(outcome);
  }
}
