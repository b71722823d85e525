import { CONFIG_MIRROR_ANNOTATION, type Pod, type StatusError } from '../../api/index.js';

/** Where a pod came from. `api`: bound to this node in the API server; `file` and `http`: static pods. */
export type PodSourceName = 'api' | 'file' | 'http';

/**
 * One change of the desired pods, as the pod workers consume it (the kubelet's `PodUpdate`, one
 * pod per update). `ADD`: a pod UID seen for the first time. `UPDATE`: its spec or metadata
 * changed — a deletionTimestamp appearing is an UPDATE. `REMOVE`: it is gone from its source (the
 * pod object deleted, or its manifest removed or changed to one with another UID). `RECONCILE`:
 * only its status changed in the API server (the workers compare it with what they wrote).
 */
export interface PodUpdate {
  readonly type: 'ADD' | 'UPDATE' | 'REMOVE' | 'RECONCILE';
  readonly source: PodSourceName;
  readonly pod: Pod;
}

/**
 * What a source emits. A `snapshot` is the source's complete set: it replaces the previous one, so
 * a pod missing from it was removed. A `delta` changes one pod (the API source, after its first
 * snapshot). Every source's first emission is a snapshot: that is when the source counts as seen.
 */
export type SourceEvent =
  | { readonly kind: 'snapshot'; readonly source: PodSourceName; readonly pods: readonly Pod[] }
  | { readonly kind: 'delta'; readonly source: PodSourceName; readonly op: 'set' | 'remove'; readonly pod: Pod };

/** A manifest document (or file, or response) a static source could not use; it was skipped. */
export interface ManifestProblem {
  readonly source: Exclude<PodSourceName, 'api'>;
  /** The file path or URL. */
  readonly origin: string;
  /** The document's index in its file or response (0-based), when the problem is one document's. */
  readonly document?: number | undefined;
  readonly error: StatusError;
}

/** Annotations the agent puts on static pods and their mirrors. */
export const CONFIG_SOURCE_ANNOTATION = 'svc.io/config.source';
export const CONFIG_HASH_ANNOTATION = 'svc.io/config.hash';

/** `namespace/name`, the key pods are known by across UIDs (a static pod keeps its name when its UID changes). */
export const podFullName = (pod: Pod): string => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;

/** A static pod: from a file or URL (not from the API server). */
export const isStaticPod = (pod: Pod): boolean => {
  const source = pod.metadata.annotations?.[CONFIG_SOURCE_ANNOTATION];
  return source === 'file' || source === 'http';
};

/** A mirror pod: the API server's copy of a static pod, never run by the agent. */
export const isMirrorPod = (pod: Pod): boolean => pod.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION] !== undefined;
