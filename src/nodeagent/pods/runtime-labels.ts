import { createHash } from 'node:crypto';
import type { Container, Pod } from '../../api/index.js';
import { CONTAINER_NAME_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from '../cri/index.js';
import { canonicalJson } from '../sources/index.js';

/**
 * The labels and annotations the agent puts on sandboxes and containers (the contract in
 * docs/node-agent.md, "Runtime labels"). They are how a restarted agent, the agent's server and
 * the garbage collector find a pod's containers without any state of their own.
 */
export { CONTAINER_NAME_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from '../cri/index.js';
export const CONTAINER_RESTART_COUNT_ANNOTATION = 'svc.io/container.restartCount';
export const CONTAINER_HASH_ANNOTATION = 'svc.io/container.hash';
export const POD_TERMINATION_GRACE_PERIOD_ANNOTATION = 'svc.io/pod.terminationGracePeriod';

/** The three labels every sandbox and container of a pod carries. */
export function podLabels(pod: Pod): Record<string, string> {
  return {
    [POD_NAME_LABEL]: pod.metadata.name ?? '',
    [POD_NAMESPACE_LABEL]: pod.metadata.namespace ?? 'default',
    [POD_UID_LABEL]: pod.metadata.uid ?? '',
  };
}

/** `<podLogsDir>/<namespace>_<name>_<uid>`: the sandbox's log directory. */
export function podLogDirectory(podLogsDir: string, pod: Pod): string {
  return `${podLogsDir}/${pod.metadata.namespace ?? 'default'}_${pod.metadata.name ?? ''}_${pod.metadata.uid ?? ''}`;
}

/** `<container name>/<restart count>.log`, relative to the sandbox's log directory. */
export const containerLogPath = (name: string, restartCount: number): string => `${name}/${restartCount}.log`;

/** The hashes of frozen containers (a source's pods: replaced when they change, never changed). */
const hashes = new WeakMap<Container, string>();

/**
 * The hash of a container's spec: 16 hex digits of SHA-256 over its canonical JSON, so key order
 * does not matter. A running container whose hash differs from its spec's is replaced. Every sync
 * of a running pod compares it, so a frozen container keeps its hash: the informer's pods are
 * frozen, and the same objects from one sync to the next while the pod does not change.
 */
export function containerHash(container: Container): string {
  let hash = hashes.get(container);
  if (hash === undefined) {
    hash = createHash('sha256').update(canonicalJson(container)).digest('hex').slice(0, 16);
    if (Object.isFrozen(container)) hashes.set(container, hash);
  }
  return hash;
}

/** The restart count a runtime container records (its annotation, else its attempt). */
export function restartCountOf(container: { readonly annotations: Readonly<Record<string, string>>; readonly metadata: { readonly attempt: number } | null }): number {
  const annotated = Number(container.annotations[CONTAINER_RESTART_COUNT_ANNOTATION]);
  return Number.isInteger(annotated) && annotated >= 0 ? annotated : (container.metadata?.attempt ?? 0);
}
