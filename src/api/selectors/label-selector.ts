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
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * A `>`/`<` operand as upstream reads it (strconv.ParseInt, 64 bits); undefined when the text is
 * not one. Exact: past 2^53 a float would compare neighbours as equal.
 */
export function parseInt64(text: string): bigint | undefined {
  if (!INTEGER.test(text)) return undefined;
  const value = BigInt(text);
  return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
}

function compare(value: string | undefined, bound: string | undefined, holds: (a: bigint, b: bigint) => boolean): boolean {
  const a = value === undefined ? undefined : parseInt64(value);
  const b = bound === undefined ? undefined : parseInt64(bound);
  return a !== undefined && b !== undefined && holds(a, b);
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
