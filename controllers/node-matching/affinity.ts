import { z } from 'zod';
import type { Node, Pod } from '../../src/api/index.js';
import { anyTermMatches, type NodeSelectorTerm } from './node-selector.js';

/**
 * The part of `spec.affinity` the scheduler reads: node affinity. The Pod schema keeps `affinity`
 * loose, so it is read through this schema; a shape the schema rejects counts as no affinity
 * (the API server has validated what it stored).
 */
const requirementSchema = z.looseObject({
  key: z.string(),
  operator: z.string(),
  values: z.array(z.string()).optional(),
});

const termSchema = z.looseObject({
  matchExpressions: z.array(requirementSchema).optional(),
  matchFields: z.array(requirementSchema).optional(),
});

const nodeAffinitySchema = z.looseObject({
  requiredDuringSchedulingIgnoredDuringExecution: z.looseObject({ nodeSelectorTerms: z.array(termSchema) }).optional(),
  preferredDuringSchedulingIgnoredDuringExecution: z.array(z.looseObject({ weight: z.int(), preference: termSchema })).optional(),
});

const affinitySchema = z.looseObject({ nodeAffinity: nodeAffinitySchema.optional() });

export type NodeAffinity = z.infer<typeof nodeAffinitySchema>;

export interface PreferredTerm {
  readonly weight: number;
  readonly preference: NodeSelectorTerm;
}

/** The pod's node affinity: required terms (undefined: no requirement) and weighted preferences. */
export interface PodNodeAffinity {
  readonly required: readonly NodeSelectorTerm[] | undefined;
  readonly preferred: readonly PreferredTerm[];
}

export function nodeAffinityOf(pod: Pod): PodNodeAffinity {
  const parsed = affinitySchema.safeParse(pod.spec.affinity ?? {});
  const nodeAffinity = parsed.success ? parsed.data.nodeAffinity : undefined;
  return {
    required: nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
    preferred: nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [],
  };
}

/**
 * Whether `node` satisfies what the pod requires of its node: every `spec.nodeSelector` label, and
 * one of the required node affinity terms (kube's GetRequiredNodeAffinity(pod).Match). The
 * scheduler's NodeAffinity filter and the DaemonSet controller's eligibility both ask this.
 */
export function requiredNodeAffinityMatches(pod: Pod, node: Node, required: PodNodeAffinity['required'] = nodeAffinityOf(pod).required): boolean {
  const selector = pod.spec.nodeSelector;
  if (selector) {
    const labels = node.metadata.labels ?? {};
    for (const [key, value] of Object.entries(selector)) if (labels[key] !== value) return false;
  }
  return required === undefined || anyTermMatches(required, node);
}
