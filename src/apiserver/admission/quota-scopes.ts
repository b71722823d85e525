import type { ResourceType } from '../../api/index.js';
import type { ApiObject } from '../api-object.js';

type Requirement = { scopeName?: string; operator?: string; values?: string[] };
type PodSpec = {
  activeDeadlineSeconds?: number;
  priorityClassName?: string;
  containers?: { resources?: { requests?: object; limits?: object } }[];
  initContainers?: { resources?: { requests?: object; limits?: object } }[];
};

/** A pod asks for no compute at all (every container leaves requests and limits empty). */
function isBestEffort(spec: PodSpec): boolean {
  return [...(spec.containers ?? []), ...(spec.initContainers ?? [])].every(
    (c) => Object.keys(c.resources?.requests ?? {}).length === 0 && Object.keys(c.resources?.limits ?? {}).length === 0,
  );
}

/** Whether a pod is in one scope; undefined for a scope svc does not know (the quota then selects nothing). */
function inScope(scope: string, spec: PodSpec, requirement?: Requirement): boolean | undefined {
  switch (scope) {
    case 'Terminating':
      return spec.activeDeadlineSeconds !== undefined;
    case 'NotTerminating':
      return spec.activeDeadlineSeconds === undefined;
    case 'BestEffort':
      return isBestEffort(spec);
    case 'NotBestEffort':
      return !isBestEffort(spec);
    case 'PriorityClass': {
      const name = spec.priorityClassName ?? '';
      switch (requirement?.operator) {
        case 'In':
          return (requirement.values ?? []).includes(name);
        case 'NotIn':
          return !(requirement.values ?? []).includes(name);
        case 'Exists':
          return name !== '';
        case 'DoesNotExist':
          return name === '';
        default:
          return undefined;
      }
    }
    default:
      return undefined;
  }
}

/**
 * Whether a quota tracks an object. A quota without scopes tracks everything in its namespace; one
 * with `scopes` or a `scopeSelector` tracks only the pods in every scope it names (Terminating,
 * NotTerminating, BestEffort, NotBestEffort, and PriorityClass through the selector). A scope svc
 * does not know selects nothing rather than everything.
 */
export function quotaTracks(quota: ApiObject, type: ResourceType, object: ApiObject): boolean {
  const spec = (quota['spec'] ?? {}) as { scopes?: string[]; scopeSelector?: { matchExpressions?: Requirement[] } };
  const expressions = spec.scopeSelector?.matchExpressions ?? [];
  const scopes = spec.scopes ?? [];
  if (scopes.length === 0 && expressions.length === 0) return true;
  if (type.group !== '' || type.resource !== 'pods') return false;
  const pod = (object['spec'] ?? {}) as PodSpec;
  const named = scopes.every((scope) => inScope(scope, pod) === true);
  const selected = expressions.every((e) => {
    if (e.scopeName === 'PriorityClass') return inScope('PriorityClass', pod, e) === true;
    const holds = inScope(e.scopeName ?? '', pod);
    if (holds === undefined) return false;
    return e.operator === 'DoesNotExist' ? !holds : e.operator === 'Exists' ? holds : false;
  });
  return named && selected;
}
