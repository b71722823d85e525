import type { OwnerReference, PersistentVolumeClaim, Pod, PodTemplateSpec, StatefulSet } from '../../src/api/index.js';
import { podFromTemplate } from '../workload/index.js';

/** The pod's name as a label, so a Service can select one member (upstream's StatefulSetPodNameLabel). */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** The pod's ordinal as a label (upstream's PodIndexLabel). */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
/** The name of the ControllerRevision a pod was made from. */
export const POD_REVISION_LABEL = 'controller-revision-hash';
/** The hash label of a StatefulSet's ControllerRevisions (upstream's ControllerRevisionHashLabel). */
export const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';

/** The first ordinal (`spec.ordinals.start`, default 0). */
export const startOrdinal = (set: StatefulSet): number => set.spec.ordinals?.start ?? 0;
/** The number of replicas the set wants (`spec.replicas`, default 1). */
export const replicaCount = (set: StatefulSet): number => set.spec.replicas ?? 1;

/** `<set>-<ordinal>`: the stable name of a member. */
export const podName = (set: StatefulSet, ordinal: number): string => `${set.metadata.name}-${ordinal}`;

/** The ordinal in a member's name, or undefined when the pod is not named as a member of the set (upstream's getOrdinal/isMemberOf). */
export function ordinalOf(set: StatefulSet, pod: Pod): number | undefined {
  const name = pod.metadata.name ?? '';
  const prefix = `${set.metadata.name}-`;
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined;
}

/** The claim a member's volume binds: `<template>-<set>-<ordinal>` (upstream's getPersistentVolumeClaimName). */
export const claimName = (set: StatefulSet, template: string, ordinal: number): string => `${template}-${set.metadata.name}-${ordinal}`;

type ClaimTemplate = NonNullable<StatefulSet['spec']['volumeClaimTemplates']>[number];

/**
 * The claims of a member, from the set's volume claim templates: named per member, labelled with
 * the set's `matchLabels` (as upstream), in the set's namespace. Owner references are the
 * retention policy's business (`claimOwners`).
 */
export function memberClaims(set: StatefulSet, ordinal: number): PersistentVolumeClaim[] {
  return (set.spec.volumeClaimTemplates ?? []).map((template: ClaimTemplate) => {
    const meta = template.metadata ?? {};
    const labels = { ...(meta.labels ?? {}), ...(set.spec.selector.matchLabels ?? {}) };
    return {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: claimName(set, meta.name ?? '', ordinal),
        namespace: set.metadata.namespace,
        labels,
        ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      },
      spec: template.spec,
    } as PersistentVolumeClaim;
  });
}

/**
 * A member of the set made from `template` (the revision's): the stable name, the hostname and
 * subdomain that give it a DNS name under the set's Service, the pod-name, pod-index and revision
 * labels, and a volume per claim template, bound to the member's claim (replacing a template
 * volume of the same name), as upstream's newVersionedStatefulSetPod.
 */
export function statefulPod(set: StatefulSet, template: PodTemplateSpec, ordinal: number, revision: string, reference: OwnerReference): Pod {
  const name = podName(set, ordinal);
  const pod = podFromTemplate(template, { namespace: set.metadata.namespace!, controllerRef: reference, name });
  const claims = new Map((set.spec.volumeClaimTemplates ?? []).map((t: ClaimTemplate) => [t.metadata?.name ?? '', claimName(set, t.metadata?.name ?? '', ordinal)]));
  const volumes = [
    ...(pod.spec.volumes ?? []).filter((volume) => !claims.has(volume.name)),
    ...[...claims].map(([volume, claim]) => ({ name: volume, persistentVolumeClaim: { claimName: claim } })),
  ];
  return {
    ...pod,
    metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal), [POD_REVISION_LABEL]: revision } },
    spec: { ...pod.spec, hostname: name, ...(set.spec.serviceName ? { subdomain: set.spec.serviceName } : {}), ...(volumes.length > 0 ? { volumes } : {}) },
  };
}

/** Whether the member's identity labels are right (upstream's identityMatches, for what can change on a pod). */
export function identityLabelsMatch(set: StatefulSet, pod: Pod, ordinal: number): boolean {
  const labels = pod.metadata.labels ?? {};
  return labels[POD_NAME_LABEL] === pod.metadata.name && labels[POD_INDEX_LABEL] === String(ordinal) && ordinalOf(set, pod) === ordinal;
}

export const podRevision = (pod: Pod): string | undefined => pod.metadata.labels?.[POD_REVISION_LABEL];
