import type { KubeObject } from '../meta.js';
import type { CountedType } from './usage.js';

/** A `scopeSelector` expression. */
export interface ScopeRequirement {
  readonly scopeName?: string;
  readonly operator?: string;
  readonly values?: readonly string[];
}

/** The scopes svc knows (Kubernetes' standard ones but CrossNamespacePodAffinity and VolumeAttributesClass). */
export const QUOTA_SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass'] as const;
export type QuotaScope = (typeof QUOTA_SCOPES)[number];
export const isQuotaScope = (scope: string): scope is QuotaScope => (QUOTA_SCOPES as readonly string[]).includes(scope);

/** Pairs no quota may name together. */
export const CONFLICTING_SCOPES: readonly (readonly [QuotaScope, QuotaScope])[] = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
];

const POD_COMPUTE = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/**
 * Whether a scope may limit a resource (Kubernetes' IsResourceQuotaScopeValidForResource): the
 * pod scopes limit `pods` and pod compute; BestEffort pods have no compute, so only `pods`.
 */
export function scopeLimits(scope: QuotaScope, resource: string): boolean {
  if (scope === 'BestEffort') return resource === 'pods';
  return resource === 'pods' || POD_COMPUTE.has(resource);
}

type Resources = { requests?: object; limits?: object };
type PodSpec = {
  activeDeadlineSeconds?: number;
  priorityClassName?: string;
  containers?: { resources?: Resources }[];
  initContainers?: { resources?: Resources }[];
};

/** A pod asks for no compute at all (every container leaves requests and limits empty). */
function isBestEffort(spec: PodSpec): boolean {
  return [...(spec.containers ?? []), ...(spec.initContainers ?? [])].every(
    (c) => Object.keys(c.resources?.requests ?? {}).length === 0 && Object.keys(c.resources?.limits ?? {}).length === 0,
  );
}

/** Whether a pod meets one requirement; a scope in `scopes` is the requirement `Exists`. Unknown scopes and operators meet nothing. */
function podMeets(spec: PodSpec, requirement: ScopeRequirement): boolean {
  const holds = (() => {
    switch (requirement.scopeName) {
      case 'Terminating':
        return spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds >= 0;
      case 'NotTerminating':
        return spec.activeDeadlineSeconds === undefined;
      case 'BestEffort':
        return isBestEffort(spec);
      case 'NotBestEffort':
        return !isBestEffort(spec);
      case 'PriorityClass': {
        const name = spec.priorityClassName ?? '';
        switch (requirement.operator) {
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
  })();
  if (holds === undefined) return false;
  if (requirement.scopeName === 'PriorityClass') return holds;
  return requirement.operator === 'Exists' ? holds : requirement.operator === 'DoesNotExist' ? !holds : false;
}

/** A quota's scopes and scope selector as one list of requirements (a scope is `Exists`). */
export function scopeRequirements(quota: KubeObject): ScopeRequirement[] {
  const spec = (quota['spec'] ?? {}) as { scopes?: string[]; scopeSelector?: { matchExpressions?: ScopeRequirement[] } };
  return [...(spec.scopes ?? []).map((scopeName) => ({ scopeName, operator: 'Exists' })), ...(spec.scopeSelector?.matchExpressions ?? [])];
}

/**
 * Whether a quota tracks an object. A quota without scopes tracks everything in its namespace; one
 * with `scopes` or a `scopeSelector` tracks only the pods that meet every requirement
 * (Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass). A scope svc does not
 * know selects nothing rather than everything.
 */
export function quotaTracks(quota: KubeObject, type: CountedType, object: KubeObject): boolean {
  const requirements = scopeRequirements(quota);
  if (requirements.length === 0) return true;
  if (type.group !== '' || type.resource !== 'pods') return false;
  const spec = (object['spec'] ?? {}) as PodSpec;
  return requirements.every((r) => podMeets(spec, r));
}
