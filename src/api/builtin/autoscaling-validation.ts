import { horizontalPodAutoscalerFromV1 } from './autoscaling-v1-conversion.js';
import type { HorizontalPodAutoscaler } from '../kinds/index.js';
import type { KubeObject } from '../meta.js';
import { quantityValue } from '../../browser-safe/index.js';
import type { WriteStrategy } from '../resource-type.js';
import type { FieldCause } from '../status-error.js';
import { fieldInvalid, fieldNotSupported, fieldRequired } from '../validation/causes.js';

/**
 * The checks of a HorizontalPodAutoscaler a schema cannot express (kube-apiserver's
 * ValidateHorizontalPodAutoscaler for autoscaling/v2): replica bounds, each metric's source as its
 * type asks, targets, and the behavior's policies and windows. Each is a 422 cause with its field
 * path; nothing is written.
 */

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

const METRIC_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'] as const;
const SOURCE_OF: Readonly<Record<string, string>> = { Resource: 'resource', ContainerResource: 'containerResource', Pods: 'pods', Object: 'object', External: 'external' };
const TARGET_TYPES = ['AverageValue', 'Utilization', 'Value'] as const;
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'] as const;
const POLICY_TYPES = ['Percent', 'Pods'] as const;
// Upstream's bounds: a policy period up to 30 min, a stabilization window up to an hour.
const MAX_PERIOD_SECONDS = 1800;
const MAX_WINDOW_SECONDS = 3600;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function validateTarget(target: unknown, path: string, allowUtilization: boolean): FieldCause[] {
  if (!isRecord(target)) return [fieldRequired(path, 'must specify a metric target')];
  const causes: FieldCause[] = [];
  const type = target['type'];
  if (typeof type !== 'string' || type === '') causes.push(fieldRequired(`${path}.type`, 'must specify a metric target type'));
  else if (!(TARGET_TYPES as readonly string[]).includes(type)) causes.push(fieldNotSupported(`${path}.type`, type, TARGET_TYPES));
  const hasUtilization = target['averageUtilization'] !== undefined;
  const value = target['value'] ?? target['averageValue'];
  if (hasUtilization && (!isInt(target['averageUtilization']) || target['averageUtilization'] < 1)) {
    causes.push(fieldInvalid(`${path}.averageUtilization`, target['averageUtilization'], 'must be greater than 0'));
  }
  if (hasUtilization && !allowUtilization) causes.push(fieldInvalid(`${path}.averageUtilization`, target['averageUtilization'], 'utilization is only supported for resource metrics'));
  if (value !== undefined && !((quantityValue(value) ?? 0) > 0)) causes.push(fieldInvalid(`${path}.${target['value'] !== undefined ? 'value' : 'averageValue'}`, value, 'must be positive'));
  if (type === 'Utilization' && !hasUtilization) causes.push(fieldRequired(`${path}.averageUtilization`, 'must set either a target raw value or a target utilization'));
  if (type === 'AverageValue' && target['averageValue'] === undefined) causes.push(fieldRequired(`${path}.averageValue`, 'must set either a target raw value or a target utilization'));
  if (type === 'Value' && target['value'] === undefined) causes.push(fieldRequired(`${path}.value`, 'must set either a target raw value or a target utilization'));
  return causes;
}

function validateMetric(metric: unknown, path: string): FieldCause[] {
  if (!isRecord(metric)) return [fieldRequired(path)];
  const type = metric['type'];
  if (typeof type !== 'string' || type === '') return [fieldRequired(`${path}.type`, 'must specify a metric source type')];
  if (!(METRIC_TYPES as readonly string[]).includes(type)) return [fieldNotSupported(`${path}.type`, type, METRIC_TYPES)];
  const causes: FieldCause[] = [];
  const own = SOURCE_OF[type]!;
  for (const other of Object.values(SOURCE_OF)) {
    if (other !== own && metric[other] !== undefined) causes.push(fieldInvalid(`${path}.${other}`, '', 'must populate the given metric source only'));
  }
  const source = metric[own];
  if (!isRecord(source)) return [...causes, fieldRequired(`${path}.${own}`, 'must populate information for the given metric source')];
  if (type === 'Resource' || type === 'ContainerResource') {
    if (typeof source['name'] !== 'string' || source['name'] === '') causes.push(fieldRequired(`${path}.${own}.name`, 'must specify a resource name'));
    if (type === 'ContainerResource' && (typeof source['container'] !== 'string' || source['container'] === '')) causes.push(fieldRequired(`${path}.${own}.container`, 'must specify a container'));
    const target = source['target'];
    causes.push(...validateTarget(target, `${path}.${own}.target`, true));
    if (isRecord(target) && target['type'] === 'Value') causes.push(fieldNotSupported(`${path}.${own}.target.type`, 'Value', ['AverageValue', 'Utilization']));
  } else {
    if (!isRecord(source['metric']) || typeof source['metric']['name'] !== 'string' || source['metric']['name'] === '') causes.push(fieldRequired(`${path}.${own}.metric.name`, 'must specify a metric name'));
    causes.push(...validateTarget(source['target'], `${path}.${own}.target`, false));
  }
  return causes;
}

function validateRules(rules: unknown, path: string): FieldCause[] {
  if (rules === undefined || rules === null) return [];
  if (!isRecord(rules)) return [fieldInvalid(path, rules, 'must be an object')];
  const causes: FieldCause[] = [];
  const window = rules['stabilizationWindowSeconds'];
  if (window !== undefined && (!isInt(window) || window < 0 || window > MAX_WINDOW_SECONDS)) {
    causes.push(fieldInvalid(`${path}.stabilizationWindowSeconds`, window, `must be less than or equal to ${MAX_WINDOW_SECONDS} and not negative`));
  }
  const select = rules['selectPolicy'];
  if (select !== undefined && !(SELECT_POLICIES as readonly unknown[]).includes(select)) causes.push(fieldNotSupported(`${path}.selectPolicy`, select, SELECT_POLICIES));
  const policies = rules['policies'];
  if (policies !== undefined) {
    if (!Array.isArray(policies)) return [...causes, fieldInvalid(`${path}.policies`, policies, 'must be a list')];
    if (policies.length === 0 && select !== 'Disabled') causes.push(fieldRequired(`${path}.policies`, 'must specify at least one Policy'));
    policies.forEach((policy: unknown, i) => {
      const at = `${path}.policies[${i}]`;
      if (!isRecord(policy)) return void causes.push(fieldRequired(at));
      if (!(POLICY_TYPES as readonly unknown[]).includes(policy['type'])) causes.push(fieldNotSupported(`${at}.type`, policy['type'], POLICY_TYPES));
      if (!isInt(policy['value']) || policy['value'] <= 0) causes.push(fieldInvalid(`${at}.value`, policy['value'], 'must be greater than zero'));
      const period = policy['periodSeconds'];
      if (!isInt(period) || period <= 0 || period > MAX_PERIOD_SECONDS) causes.push(fieldInvalid(`${at}.periodSeconds`, period, `must be greater than zero and less than or equal to ${MAX_PERIOD_SECONDS}`));
    });
  }
  return causes;
}

export function validateHorizontalPodAutoscaler(object: KubeObject): FieldCause[] {
  const { spec } = object as HorizontalPodAutoscaler;
  const causes: FieldCause[] = [];
  const min = spec.minReplicas ?? 1;
  if (spec.minReplicas !== undefined && spec.minReplicas < 1) causes.push(fieldInvalid('spec.minReplicas', spec.minReplicas, 'must be greater than or equal to 1'));
  if (spec.maxReplicas < min) causes.push(fieldInvalid('spec.maxReplicas', spec.maxReplicas, 'must be greater than or equal to `minReplicas`'));
  (spec.metrics ?? []).forEach((metric, i) => causes.push(...validateMetric(metric, `spec.metrics[${i}]`)));
  if (isRecord(spec.behavior)) {
    causes.push(...validateRules(spec.behavior['scaleUp'], 'spec.behavior.scaleUp'), ...validateRules(spec.behavior['scaleDown'], 'spec.behavior.scaleDown'));
  }
  return causes;
}

export const horizontalPodAutoscalerStrategy: WriteStrategy = {
  validate: (object) => validateHorizontalPodAutoscaler(object),
};

/**
 * autoscaling/v1: checked as upstream checks it, on the object converted to v2 (so causes name the
 * v2 fields, `spec.metrics[0].resource.target.averageUtilization`, as kube-apiserver's do).
 */
export const horizontalPodAutoscalerV1Strategy: WriteStrategy = {
  validate: (object) => validateHorizontalPodAutoscaler(horizontalPodAutoscalerFromV1(object)),
};
