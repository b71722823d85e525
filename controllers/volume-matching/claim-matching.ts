import {
  labelSelectorFromSpec,
  matchesLabels,
  quantityValue,
  type Node,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../../src/api/index.js';
import { anyTermMatches, type NodeSelectorTerm } from '../node-matching/index.js';

/**
 * Which PersistentVolume a claim may bind to, as the binder (and the scheduler, for claims that
 * wait for their first consumer) decide it. Upstream's rules: the same class, every access mode the
 * claim asks for, the same volume mode, at least the size asked, the claim's selector on the
 * volume's labels, a volume free or pre-bound to this claim; of those the pre-bound one, else the
 * smallest that fits.
 */

/** The bytes a claim asks for; undefined when its quantity is not one (the API server refuses those). */
export function requestedBytes(claim: PersistentVolumeClaim): number | undefined {
  return bytesOf(claim.spec.resources.requests.storage);
}

export function capacityBytes(volume: PersistentVolume): number | undefined {
  return bytesOf(volume.spec.capacity.storage);
}

/** A storage quantity in whole bytes, rounded up as upstream ("0.5Ki" is 512, "1.1" is 2). */
export function bytesOf(quantity: unknown): number | undefined {
  const value = quantityValue(quantity);
  return value === undefined || value < 0 ? undefined : Math.ceil(value);
}

/** The class a claim or volume names: unset and `""` are both "no class". */
export const classOf = (object: { spec: { storageClassName?: string | undefined } }): string => object.spec.storageClassName ?? '';

/** Whether the volume's claimRef names this claim (by uid when it carries one). */
export function preBoundTo(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec.claimRef;
  if (!ref) return false;
  if (ref.name !== claim.metadata.name || (ref.namespace ?? '') !== (claim.metadata.namespace ?? '')) return false;
  return !ref.uid || ref.uid === claim.metadata.uid;
}

/** The volume's required node affinity terms; undefined when it may be used anywhere. */
export function volumeNodeTerms(volume: PersistentVolume): readonly NodeSelectorTerm[] | undefined {
  const required = (volume.spec.nodeAffinity as { required?: { nodeSelectorTerms?: NodeSelectorTerm[] } } | undefined)?.required;
  return required?.nodeSelectorTerms;
}

/** Whether a volume can be used on `node` (its node affinity). */
export function volumeFitsNode(volume: PersistentVolume, node: Node): boolean {
  const terms = volumeNodeTerms(volume);
  return terms === undefined || anyTermMatches(terms, node);
}

/** Why `volume` cannot serve `claim`, or undefined when it can (node affinity aside). */
export function mismatch(claim: PersistentVolumeClaim, volume: PersistentVolume): string | undefined {
  if (volume.metadata.deletionTimestamp) return 'is being deleted';
  if (volume.spec.claimRef && !preBoundTo(volume, claim)) return 'is bound to another claim';
  const phase = volume.status?.phase;
  if (phase === 'Released' || phase === 'Failed') return `is ${phase}`;
  if (classOf(volume) !== classOf(claim)) return 'has another storage class';
  if ((volume.spec.volumeMode ?? 'Filesystem') !== (claim.spec.volumeMode ?? 'Filesystem')) return 'has another volume mode';
  const modes = new Set(volume.spec.accessModes);
  if (!claim.spec.accessModes.every((mode) => modes.has(mode))) return 'lacks an access mode';
  const want = requestedBytes(claim);
  const have = capacityBytes(volume);
  if (want === undefined || have === undefined || have < want) return 'is too small';
  if (claim.spec.selector && !matchesLabels(labelSelectorFromSpec(claim.spec.selector), volume.metadata.labels ?? {})) return "does not match the claim's selector";
  return undefined;
}

/**
 * The volume `claim` should bind to among `volumes`: one pre-bound to it if it fits, else the
 * smallest that fits (ties: by name, for a stable choice). `node`, when given, must suit the
 * volume's node affinity (a claim waiting for its first consumer binds where the pod goes).
 */
export function bestVolume(claim: PersistentVolumeClaim, volumes: Iterable<PersistentVolume>, node?: Node): PersistentVolume | undefined {
  let best: PersistentVolume | undefined;
  for (const volume of volumes) {
    if (mismatch(claim, volume) !== undefined) continue;
    if (node && !volumeFitsNode(volume, node)) continue;
    if (preBoundTo(volume, claim)) return volume;
    if (!best) best = volume;
    else {
      const a = capacityBytes(volume)!;
      const b = capacityBytes(best)!;
      if (a < b || (a === b && (volume.metadata.name ?? '') < (best.metadata.name ?? ''))) best = volume;
    }
  }
  return best;
}

/** Whether a class delays binding until a pod uses the claim. */
export const waitsForFirstConsumer = (storageClass: StorageClass | undefined): boolean => storageClass?.volumeBindingMode === 'WaitForFirstConsumer';
