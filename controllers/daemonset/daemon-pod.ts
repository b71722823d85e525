import type { DaemonSet, Node, Pod, PodTemplateSpec } from '../../src/api/index.js';
import { requiredNodeAffinityMatches, toleratedBy, TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE, type NodeSelectorTerm, type Toleration } from '../node-matching/index.js';

/** The label with the revision hash of the template a daemon pod was made from (upstream's DefaultDaemonSetUniqueLabelKey). */
export const REVISION_HASH_LABEL = 'controller-revision-hash';
/** The deprecated label with the DaemonSet generation a pod was made at; upstream still writes and reads it. */
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

/**
 * The tolerations every daemon pod gets (upstream's AddOrUpdateDaemonPodTolerations): a daemon
 * keeps running on a node that is not ready or unreachable, and is placed on nodes under disk,
 * memory or PID pressure and on cordoned ones; a hostNetwork daemon also on nodes whose network
 * is not set up yet (it may be what sets it up).
 */
export function daemonTolerations(template: PodTemplateSpec): Toleration[] {
  const added: Toleration[] = [
    { key: TAINT_NOT_READY, operator: 'Exists', effect: 'NoExecute' },
    { key: TAINT_UNREACHABLE, operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: TAINT_UNSCHEDULABLE, operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (template.spec.hostNetwork === true) added.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  // Added or updated: a toleration of the template with the same key and effect is replaced.
  const own = (template.spec.tolerations ?? []).filter((t) => !added.some((a) => a.key === t.key && a.effect === t.effect));
  return [...own, ...added];
}

/**
 * The template daemon pods are made from (upstream's CreatePodTemplate): the DaemonSet's, with the
 * automatic tolerations, the revision hash and the template generation as labels.
 */
export function daemonPodTemplate(ds: DaemonSet, hash: string): PodTemplateSpec {
  const template = ds.spec.template;
  const labels: Record<string, string> = { ...(template.metadata?.labels ?? {}), [REVISION_HASH_LABEL]: hash };
  if (ds.metadata.generation !== undefined) labels[TEMPLATE_GENERATION_LABEL] = String(ds.metadata.generation);
  return { ...template, metadata: { ...template.metadata, labels }, spec: { ...template.spec, tolerations: daemonTolerations(template) } };
}

const nodeNameTerm = (nodeName: string): NodeSelectorTerm => ({ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] });

/**
 * The pod's affinity with its required node terms replaced by one that names the node by
 * `metadata.name` (upstream's ReplaceDaemonSetPodNodeNameNodeAffinity): the scheduler binds the
 * pod, and to that node only. Preferences are kept.
 */
export function withNodeNameAffinity(spec: Pod['spec'], nodeName: string): Pod['spec'] {
  const affinity = (spec.affinity ?? {}) as { nodeAffinity?: Record<string, unknown> } & Record<string, unknown>;
  const nodeAffinity = { ...(affinity.nodeAffinity ?? {}), requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [nodeNameTerm(nodeName)] } };
  return { ...spec, affinity: { ...affinity, nodeAffinity } };
}

/**
 * The node a daemon pod is for: its `spec.nodeName` once bound, else the one node its required
 * node affinity names (upstream's GetTargetNodeName).
 */
export function targetNodeOf(pod: Pod): string | undefined {
  if (pod.spec.nodeName) return pod.spec.nodeName;
  const affinity = pod.spec.affinity as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] } } } | undefined;
  const terms = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length !== 1) return undefined;
  const fields = terms[0]!.matchFields ?? [];
  for (const field of fields) {
    if (field.key === 'metadata.name' && field.operator === 'In' && field.values?.length === 1) return field.values[0];
  }
  return undefined;
}

/** What the DaemonSet asks of a node (upstream's NodeShouldRunDaemonPod). */
export interface NodeFit {
  /** A daemon pod should be placed on the node. */
  readonly shouldRun: boolean;
  /** A daemon pod already there may stay (it tolerates every NoExecute taint). */
  readonly shouldContinueRunning: boolean;
}

/**
 * Whether the DaemonSet's pod belongs on `node`: the template's `nodeName` (if any) is the node,
 * the node selector and required node affinity match, and every NoSchedule and NoExecute taint of
 * the node is tolerated (with the automatic tolerations). A node with an untolerated NoSchedule
 * taint keeps a pod it has; an untolerated NoExecute taint evicts it.
 */
export function nodeFit(ds: DaemonSet, node: Node): NodeFit {
  const template = ds.spec.template;
  const nodeName = node.metadata.name!;
  if (template.spec.nodeName && template.spec.nodeName !== nodeName) return { shouldRun: false, shouldContinueRunning: false };
  const pod: Pod = { metadata: { ...template.metadata }, spec: { ...template.spec, tolerations: daemonTolerations(template) } };
  if (!requiredNodeAffinityMatches(pod, node)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = node.spec?.taints ?? [];
  const untolerated = (effect: (e: string) => boolean) => taints.some((taint) => effect(taint.effect) && !toleratedBy(pod.spec.tolerations, taint));
  if (!untolerated((e) => e === 'NoSchedule' || e === 'NoExecute')) return { shouldRun: true, shouldContinueRunning: true };
  return { shouldRun: false, shouldContinueRunning: !untolerated((e) => e === 'NoExecute') };
}

/** Whether the pod was made from the DaemonSet's current template (upstream's IsPodUpdated: the hash, or the deprecated generation label). */
export function isPodUpdated(pod: Pod, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  const generationMatches = generation !== undefined && labels[TEMPLATE_GENERATION_LABEL] === String(generation);
  return (hash !== '' && labels[REVISION_HASH_LABEL] === hash) || generationMatches;
}
