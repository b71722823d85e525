import { canonicalJson } from '../canonical-json.js';
import { withDefaults } from '../defaults/index.js';
import type { DaemonSet, PodDisruptionBudget, StatefulSet } from '../kinds/index.js';
import type { KubeObject } from '../meta.js';
import type { WriteStrategy } from '../resource-type.js';
import type { FieldCause } from '../status-error.js';
import { fieldForbidden, fieldInvalid, fieldRequired } from '../validation/causes.js';
import { immutableSelector, validateIntOrPercent, validateLabelSelector, validateSelectorAndTemplate } from './replicated-validation.js';
import { validateDaemonSetStatus, validateStatefulSetStatus } from './workload-status-rules.js';

const STATEFUL_SET_KIND = { group: 'apps', kind: 'StatefulSet' } as const;

/**
 * The checks of DaemonSets, StatefulSets and PodDisruptionBudgets that a schema cannot express
 * (kube-apiserver's ValidateDaemonSet, ValidateStatefulSet, ValidatePodDisruptionBudget): the
 * selector and template as for the other workloads, the update strategies' bounds, what an update
 * may change; negative counts are the schema's. Each is a 422 cause with its field path. Their
 * `/status` writes run the status rules of workload-status-rules.ts instead.
 */

const isZero = (value: number | string | undefined): boolean => value === 0 || value === '0%';

function validateDaemonSet(object: KubeObject, old: KubeObject | undefined): FieldCause[] {
  const { spec } = object as DaemonSet;
  const causes = validateSelectorAndTemplate(spec.selector, spec.template, 'daemonset');
  const strategy = spec.updateStrategy;
  if (strategy?.type === 'OnDelete' && strategy.rollingUpdate !== undefined) {
    causes.push(fieldForbidden('spec.updateStrategy.rollingUpdate', 'may not be specified when strategy `type` is \'OnDelete\''));
  }
  const rolling = strategy?.rollingUpdate;
  if (rolling) {
    causes.push(...validateIntOrPercent(rolling.maxUnavailable, 'spec.updateStrategy.rollingUpdate.maxUnavailable'), ...validateIntOrPercent(rolling.maxSurge, 'spec.updateStrategy.rollingUpdate.maxSurge'));
    // Defaults fill an absent bound (maxUnavailable 1, maxSurge 0) after validation: an absent one is not a zero here.
    const unavailable = rolling.maxUnavailable ?? 1;
    const surge = rolling.maxSurge ?? 0;
    if (isZero(unavailable) && isZero(surge)) causes.push(fieldInvalid('spec.updateStrategy.rollingUpdate.maxUnavailable', unavailable, 'cannot be 0 when maxSurge is 0'));
  }
  return [...causes, ...immutableSelector(object, old)];
}

// What an update of a StatefulSet's spec may change (upstream's ValidateStatefulSetUpdate).
const STATEFUL_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

function validateStatefulSet(object: KubeObject, old: KubeObject | undefined): FieldCause[] {
  const { spec } = object as StatefulSet;
  const causes = validateSelectorAndTemplate(spec.selector, spec.template, 'statefulset');
  const strategy = spec.updateStrategy;
  if (strategy?.type === 'OnDelete' && strategy.rollingUpdate !== undefined) {
    causes.push(fieldInvalid('spec.updateStrategy.rollingUpdate', strategy.rollingUpdate, 'only allowed for updateStrategy \'RollingUpdate\''));
  }
  const maxUnavailable = strategy?.rollingUpdate?.maxUnavailable;
  if (maxUnavailable !== undefined) {
    const path = 'spec.updateStrategy.rollingUpdate.maxUnavailable';
    const own = validateIntOrPercent(maxUnavailable, path);
    causes.push(...own);
    if (own.length === 0 && isZero(maxUnavailable)) causes.push(fieldInvalid(path, maxUnavailable, 'cannot be 0'));
  }
  (spec.volumeClaimTemplates ?? []).forEach((template, i) => {
    if (!template.metadata?.name) causes.push(fieldRequired(`spec.volumeClaimTemplates[${i}].metadata.name`));
  });
  if (old !== undefined) {
    const frozen = (set: StatefulSet) => canonicalJson(Object.fromEntries(Object.entries(set.spec).filter(([key]) => !STATEFUL_MUTABLE.includes(key))));
    // The write path defaults after validation; upstream defaults the body first, so a field left
    // out of a PUT (podManagementPolicy, revisionHistoryLimit, ...) is compared as its default.
    if (frozen(withDefaults(STATEFUL_SET_KIND, object as StatefulSet)) !== frozen(old as StatefulSet)) {
      causes.push(fieldForbidden('spec', `updates to statefulset spec for fields other than ${STATEFUL_MUTABLE.map((f) => `'${f}'`).join(', ')} are forbidden`));
    }
  }
  return causes;
}

function validatePodDisruptionBudget(object: KubeObject): FieldCause[] {
  const spec = (object as PodDisruptionBudget).spec ?? {};
  const causes: FieldCause[] = [...validateIntOrPercent(spec.minAvailable, 'spec.minAvailable'), ...validateIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable')];
  if (spec.selector !== undefined) causes.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  return causes;
}

export const daemonSetStrategy: WriteStrategy = { validate: validateDaemonSet, validateStatus: validateDaemonSetStatus };
export const statefulSetStrategy: WriteStrategy = { validate: validateStatefulSet, validateStatus: validateStatefulSetStatus };
export const podDisruptionBudgetStrategy: WriteStrategy = { validate: validatePodDisruptionBudget };
