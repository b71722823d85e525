import type { Deployment, ReplicaSet, ReplicationController } from '../kinds/index.js';
import type { KubeObject } from '../meta.js';
import type { WriteStrategy } from '../resource-type.js';
import type { FieldCause } from '../status-error.js';
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '../validation/causes.js';
import { validateLabelValue, validateQualifiedName } from '../validation/labels.js';
import { validateDeploymentStatus, validateReplicaSetStatus } from './workload-status-rules.js';

/**
 * The checks of the replicated workloads that a schema cannot express (kube-apiserver's
 * ValidateDeployment, ValidateReplicaSet, ValidateReplicationController): a selector that is
 * well formed and not empty, a template whose labels it selects, `restartPolicy: Always`, the
 * rolling-update bounds, a progress deadline beyond minReadySeconds, and (apps/v1) an immutable
 * selector. Each is a 422 cause with its field path; nothing is written. Their `/status` writes
 * run the status rules of workload-status-rules.ts instead.
 */

type SelectorSpec = NonNullable<ReplicaSet['spec']['selector']>;
type Template = ReplicaSet['spec']['template'] | undefined;

/** A label selector's own checks: keys and values well formed, values as the operator wants. */
export function validateLabelSelector(selector: SelectorSpec, path: string): FieldCause[] {
  const causes: FieldCause[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    for (const problem of validateQualifiedName(key)) causes.push(fieldInvalid(`${path}.matchLabels`, key, problem));
    for (const problem of validateLabelValue(value)) causes.push(fieldInvalid(`${path}.matchLabels`, value, problem));
  }
  (selector.matchExpressions ?? []).forEach((expression, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    for (const problem of validateQualifiedName(expression.key)) causes.push(fieldInvalid(`${at}.key`, expression.key, problem));
    const values = expression.values ?? [];
    if ((expression.operator === 'In' || expression.operator === 'NotIn') && values.length === 0) {
      causes.push(fieldRequired(`${at}.values`, 'must be specified when `operator` is \'In\' or \'NotIn\''));
    }
    if ((expression.operator === 'Exists' || expression.operator === 'DoesNotExist') && values.length > 0) {
      causes.push(fieldForbidden(`${at}.values`, 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
    }
    values.forEach((value, j) => {
      for (const problem of validateLabelValue(value)) causes.push(fieldInvalid(`${at}.values[${j}]`, value, problem));
    });
  });
  return causes;
}

/** Whether the selector selects these labels (the plain rules: no parse needed once validated). */
function selects(selector: SelectorSpec, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, key);
    if (operator === 'In' && !(has && values.includes(labels[key]!))) return false;
    if (operator === 'NotIn' && has && values.includes(labels[key]!)) return false;
    if (operator === 'Exists' && !has) return false;
    if (operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** Selector present, well formed, not empty, and selecting the template's labels; the template's pods restart Always. */
export function validateSelectorAndTemplate(selector: SelectorSpec | undefined, template: Template, kind: string): FieldCause[] {
  const causes: FieldCause[] = [];
  if (selector === undefined) return [fieldRequired('spec.selector')];
  const own = validateLabelSelector(selector, 'spec.selector');
  causes.push(...own);
  const empty = Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
  if (empty) causes.push(fieldInvalid('spec.selector', selector, `empty selector is invalid for ${kind}`));
  const labels = template?.metadata?.labels ?? {};
  if (own.length === 0 && !empty && !selects(selector, labels)) causes.push(fieldInvalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  const restartPolicy = template?.spec.restartPolicy;
  if (restartPolicy !== undefined && restartPolicy !== 'Always') causes.push(fieldNotSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (template?.spec.activeDeadlineSeconds !== undefined) causes.push(fieldForbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicaSet is not Supported'));
  return causes;
}

/** apps/v1 selectors cannot change after creation. */
export function immutableSelector(object: KubeObject, old: KubeObject | undefined): FieldCause[] {
  if (!old) return [];
  const next = (object as ReplicaSet).spec?.selector;
  const before = (old as ReplicaSet).spec?.selector;
  return JSON.stringify(canonical(next)) === JSON.stringify(canonical(before)) ? [] : [fieldInvalid('spec.selector', next, 'field is immutable')];
}

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]));
};

/** An int-or-percent bound: a non-negative number, or `N%` with N at most 100. */
export function validateIntOrPercent(value: number | string | undefined, path: string): FieldCause[] {
  if (value === undefined) return [];
  if (typeof value === 'number') return value < 0 ? [fieldInvalid(path, value, 'must be greater than or equal to 0')] : [];
  const match = /^(\d+)%$/.exec(value);
  if (!match) return [fieldInvalid(path, value, 'a valid percent string must be a numeric string followed by an ending \'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')')];
  return Number(match[1]) > 100 ? [fieldInvalid(path, value, 'must not be greater than 100%')] : [];
}

// An absent bound is defaulted to 25% after these checks run (the write path defaults last), so it is not zero.
const isZero = (value: number | string | undefined): boolean => value === 0 || value === '0%';

function validateDeployment(object: KubeObject, old: KubeObject | undefined): FieldCause[] {
  const { spec } = object as Deployment;
  const causes = validateSelectorAndTemplate(spec.selector, spec.template, 'deployment');
  const strategy = spec.strategy;
  if (strategy?.type === 'Recreate' && strategy.rollingUpdate !== undefined) {
    causes.push(fieldForbidden('spec.strategy.rollingUpdate', 'may not be specified when strategy `type` is \'Recreate\''));
  }
  const rolling = strategy?.rollingUpdate;
  if (rolling) {
    causes.push(...validateIntOrPercent(rolling.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'), ...validateIntOrPercent(rolling.maxSurge, 'spec.strategy.rollingUpdate.maxSurge'));
    if (isZero(rolling.maxUnavailable) && isZero(rolling.maxSurge)) {
      causes.push(fieldInvalid('spec.strategy.rollingUpdate.maxUnavailable', rolling.maxUnavailable ?? 0, 'may not be 0 when `maxSurge` is 0'));
    }
  }
  if (spec.progressDeadlineSeconds !== undefined && spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
    causes.push(fieldInvalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  return [...causes, ...immutableSelector(object, old)];
}

function validateReplicaSet(object: KubeObject, old: KubeObject | undefined): FieldCause[] {
  const { spec } = object as ReplicaSet;
  return [...validateSelectorAndTemplate(spec.selector, spec.template, 'replicaset'), ...immutableSelector(object, old)];
}

/** A ReplicationController's selector is a plain map; its template, when given, must carry those labels. */
function validateReplicationController(object: KubeObject): FieldCause[] {
  const spec = (object as ReplicationController).spec ?? {};
  // Defaulted from the template's labels after these checks run (the write path defaults last).
  const selector = spec.selector ?? spec.template?.metadata?.labels ?? {};
  if (Object.keys(selector).length === 0) return [fieldRequired('spec.selector')];
  const causes = validateLabelSelector({ matchLabels: selector }, 'spec.selector');
  if (spec.template === undefined) {
    if ((spec.replicas ?? 1) > 0) causes.push(fieldRequired('spec.template'));
    return causes;
  }
  const labels = spec.template.metadata?.labels ?? {};
  if (causes.length === 0 && !selects({ matchLabels: selector }, labels)) causes.push(fieldInvalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  const restartPolicy = spec.template.spec.restartPolicy;
  if (restartPolicy !== undefined && restartPolicy !== 'Always') causes.push(fieldNotSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  return causes;
}

export const deploymentStrategy: WriteStrategy = { validate: validateDeployment, validateStatus: validateDeploymentStatus };
export const replicaSetStrategy: WriteStrategy = { validate: validateReplicaSet, validateStatus: validateReplicaSetStatus };
export const replicationControllerStrategy: WriteStrategy = { validate: validateReplicationController, validateStatus: validateReplicaSetStatus };
