import { badRequest } from '../status-builders.js';
import { validateLabelValue, validateQualifiedName } from '../validation/labels.js';
import type { LabelOperator, LabelRequirement, LabelSelector } from './label-selector.js';

/** The `selector` of a workload spec (Deployment, Job, PDB, ...), as written in the object. */
export interface LabelSelectorSpec {
  readonly matchLabels?: Readonly<Record<string, string>> | undefined;
  readonly matchExpressions?: readonly LabelSelectorSpecRequirement[] | undefined;
}

export interface LabelSelectorSpecRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[] | undefined;
}

const SET_OPERATORS: Record<string, LabelOperator> = {
  In: 'In',
  NotIn: 'NotIn',
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
};

/**
 * The selector a spec's `matchLabels` and `matchExpressions` describe (all must hold). An empty
 * spec selects everything; a malformed one is a 400 naming the bad requirement.
 */
export function labelSelectorFromSpec(spec: LabelSelectorSpec): LabelSelector {
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(spec.matchLabels ?? {})) {
    check(key, [value]);
    requirements.push({ key, operator: 'Equals', values: [value] });
  }
  for (const expression of spec.matchExpressions ?? []) {
    const operator = SET_OPERATORS[expression.operator];
    if (!operator) throw badRequest(`invalid label selector: ${JSON.stringify(expression.operator)} is not a valid label selector operator`);
    const values = [...(expression.values ?? [])];
    const needsValues = operator === 'In' || operator === 'NotIn';
    if (needsValues && values.length === 0) {
      throw badRequest(`invalid label selector: values of ${expression.operator} on ${JSON.stringify(expression.key)} must be non-empty`);
    }
    if (!needsValues && values.length > 0) {
      throw badRequest(`invalid label selector: values of ${expression.operator} on ${JSON.stringify(expression.key)} must be empty`);
    }
    check(expression.key, values);
    requirements.push({ key: expression.key, operator, values });
  }
  return { requirements };
}

function check(key: string, values: readonly string[]): void {
  const problems = [...validateQualifiedName(key), ...values.flatMap(validateLabelValue)];
  if (problems.length > 0) throw badRequest(`invalid label selector: requirement on ${JSON.stringify(key)}: ${problems.join('; ')}`);
}
