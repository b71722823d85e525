/** A parsed label selector and how it matches a label set. */

export type LabelOperator = 'Equals' | 'NotEquals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'GreaterThan' | 'LessThan';

/** One condition on one key; the conditions of a selector all have to hold. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** One value for the comparisons, the set for In/NotIn, none for Exists/DoesNotExist. */
  readonly values: readonly string[];
}

/** No requirements selects everything. */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
}

export type Labels = Readonly<Record<string, string>>;

const INTEGER = /^[+-]?\d+$/;

function compare(value: string | undefined, bound: string | undefined, holds: (a: number, b: number) => boolean): boolean {
  if (value === undefined || bound === undefined || !INTEGER.test(value)) return false;
  return holds(Number(value), Number(bound));
}

export function matchesRequirement(requirement: LabelRequirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const value = has ? labels[requirement.key] : undefined;
  const { values } = requirement;
  switch (requirement.operator) {
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Equals':
    case 'In':
      return has && values.includes(value!);
    // A missing label is "not equal" to anything: `tier!=db` selects objects with no tier.
    case 'NotEquals':
    case 'NotIn':
      return !has || !values.includes(value!);
    case 'GreaterThan':
      return compare(value, values[0], (a, b) => a > b);
    case 'LessThan':
      return compare(value, values[0], (a, b) => a < b);
  }
}

export function matchesLabels(selector: LabelSelector, labels: Labels | undefined): boolean {
  const set = labels ?? {};
  return selector.requirements.every((requirement) => matchesRequirement(requirement, set));
}

const SYMBOL: Partial<Record<LabelOperator, string>> = { Equals: '=', NotEquals: '!=', GreaterThan: '>', LessThan: '<' };

/** The selector as `labelSelector` query text; parsing it gives the same selector back. */
export function formatLabelSelector(selector: LabelSelector): string {
  return selector.requirements
    .map(({ key, operator, values }) => {
      switch (operator) {
        case 'Exists':
          return key;
        case 'DoesNotExist':
          return `!${key}`;
        case 'In':
          return `${key} in (${values.join(',')})`;
        case 'NotIn':
          return `${key} notin (${values.join(',')})`;
        default:
          return `${key}${SYMBOL[operator]}${values[0] ?? ''}`;
      }
    })
    .join(',');
}
