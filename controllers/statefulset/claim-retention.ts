import type { OwnerReference, PersistentVolumeClaim, Pod, StatefulSet } from '../../src/api/index.js';

/**
 * `persistentVolumeClaimRetentionPolicy` as owner references on the member claims, which the
 * garbage collector acts on (upstream's claimOwnerMatchesSetAndPod):
 *
 * | whenDeleted | whenScaled | member in range | member scaled away |
 * | --- | --- | --- | --- |
 * | Retain | Retain | — | — |
 * | Retain | Delete | — | the pod |
 * | Delete | Retain | the set | the set |
 * | Delete | Delete | the set | the pod |
 *
 * An owner reference to the set deletes the claim with the set; one to the pod deletes it when
 * the scale-down deletes the pod. Neither is a controller reference.
 */
export function wantedClaimOwners(set: StatefulSet, condemned: boolean): { readonly set: boolean; readonly pod: boolean } {
  const policy = set.spec.persistentVolumeClaimRetentionPolicy;
  const whenDeleted = policy?.whenDeleted === 'Delete';
  const whenScaled = policy?.whenScaled === 'Delete';
  if (condemned && whenScaled) return { set: false, pod: true };
  return { set: whenDeleted, pod: false };
}

const setReference = (set: StatefulSet): OwnerReference => ({ apiVersion: 'apps/v1', kind: 'StatefulSet', name: set.metadata.name!, uid: set.metadata.uid! });
const podReference = (pod: Pod): OwnerReference => ({ apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name!, uid: pod.metadata.uid! });

const isSetRef = (ref: OwnerReference, set: StatefulSet) => ref.kind === 'StatefulSet' && ref.apiVersion.startsWith('apps/') && ref.name === set.metadata.name;
const isPodRef = (ref: OwnerReference, name: string) => ref.kind === 'Pod' && ref.apiVersion === 'v1' && ref.name === name;

/**
 * The claim's owner references as the policy wants them (other owners kept; references to an
 * earlier set or pod of the same name replaced), or undefined when they are right already.
 * `pod` is the member (absent before it is created: a pod reference then waits).
 */
export function claimOwners(claim: Pick<PersistentVolumeClaim, 'metadata'>, set: StatefulSet, pod: Pod | undefined, podName: string, condemned: boolean): OwnerReference[] | undefined {
  const wanted = wantedClaimOwners(set, condemned);
  const current = claim.metadata.ownerReferences ?? [];
  const others = current.filter((ref) => !isSetRef(ref, set) && !isPodRef(ref, podName));
  const next = [...others];
  if (wanted.set && set.metadata.uid) next.push(setReference(set));
  if (wanted.pod && pod?.metadata.uid) next.push(podReference(pod));
  const same = next.length === current.length && next.every((ref) => current.some((c) => c.uid === ref.uid && c.kind === ref.kind && c.name === ref.name));
  return same ? undefined : next;
}
