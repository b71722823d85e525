import { formatLabelSelector, labelSelectorFromSpec, type ResourceType, type ScalePaths } from '../../api/index.js';
import { isBuiltin } from '../request/index.js';
import type { ApiObject } from '../api-object.js';
import { valueAt } from './write-scope.js';

/**
 * Where the `scale` subresource reads and writes a type's replicas. A type declares its paths
 * (`ResourceType.scale`, as a CustomResourceDefinition does); the built-in workloads that list
 * `scale` without declaring them use Kubernetes' own: `.spec.replicas`, `.status.replicas` and the
 * label selector at `.spec.selector`.
 */
export interface ResolvedScale {
  readonly specReplicas: readonly string[];
  readonly statusReplicas: readonly string[];
  readonly selector: readonly string[] | undefined;
  /** What an absent `spec.replicas` means: 1 for the built-in workloads (Kubernetes defaults it), 0 otherwise. */
  readonly absentReplicas: number;
}

const WORKLOAD_SCALE: ScalePaths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' };

/** `.spec.replicas` → `['spec', 'replicas']`. */
export function jsonPath(path: string): string[] {
  return path.replace(/^\./, '').split('.').filter((p) => p.length > 0);
}

export function scaleOf(type: ResourceType): ResolvedScale | undefined {
  if (!type.subresources.includes('scale')) return undefined;
  const builtin = isBuiltin(type);
  const paths = type.scale ?? (builtin ? WORKLOAD_SCALE : undefined);
  if (!paths) return undefined;
  return {
    specReplicas: jsonPath(paths.specReplicasPath),
    statusReplicas: jsonPath(paths.statusReplicasPath),
    selector: paths.labelSelectorPath ? jsonPath(paths.labelSelectorPath) : undefined,
    absentReplicas: builtin ? 1 : 0,
  };
}

const asInt = (value: unknown, absent: number) => (typeof value === 'number' && Number.isInteger(value) ? value : absent);

/**
 * The selector as Scale's `status.selector` string: a string field is taken as it is (custom
 * types keep it serialized); a LabelSelector (`matchLabels`/`matchExpressions`) or a plain map
 * (a ReplicationController's) is written in label-selector syntax.
 */
function selectorText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return '';
  const object = value as Record<string, unknown>;
  const structured = 'matchLabels' in object || 'matchExpressions' in object;
  try {
    const spec = structured ? (object as Parameters<typeof labelSelectorFromSpec>[0]) : { matchLabels: object as Record<string, string> };
    return formatLabelSelector(labelSelectorFromSpec(spec));
  } catch {
    // A selector that does not parse selects nothing the autoscaler could count.
    return '';
  }
}

/** The autoscaling/v1 Scale of `object`. */
export function scaleObject(type: ResourceType, scale: ResolvedScale, object: ApiObject) {
  const meta = object.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      ...(type.namespaced ? { namespace: meta.namespace } : {}),
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: asInt(valueAt(object, scale.specReplicas), scale.absentReplicas) },
    status: {
      replicas: asInt(valueAt(object, scale.statusReplicas), 0),
      ...(scale.selector ? { selector: selectorText(valueAt(object, scale.selector)) } : {}),
    },
  };
}
