import { matchesLabels, type LabelOperator, type Node } from '../../src/api/index.js';

/** One requirement of a node selector term (`matchExpressions` or `matchFields`). */
export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | string;
  readonly values?: readonly string[];
}

/** A node selector term: every requirement must hold. */
export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[];
  readonly matchFields?: readonly NodeSelectorRequirement[];
}

/** A node selector's operators in the label selector's words (the matching is the same). */
const OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'In',
  NotIn: 'NotIn',
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
  Gt: 'GreaterThan',
  Lt: 'LessThan',
};

function requirementHolds(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const operator = OPERATORS[req.operator];
  if (operator === undefined) return false;
  const values = req.values ?? [];
  // Gt and Lt take exactly one value, else the requirement matches nothing (as Kubernetes).
  if ((operator === 'GreaterThan' || operator === 'LessThan') && values.length !== 1) return false;
  return matchesLabels({ requirements: [{ key: req.key, operator, values }] }, value === undefined ? {} : { [req.key]: value });
}

/**
 * Whether `node` matches `term`. An empty term matches nothing. `matchFields` knows only
 * `metadata.name`, the one field Kubernetes allows there.
 */
export function termMatches(term: NodeSelectorTerm, node: Node): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  for (const req of expressions) if (!requirementHolds(req, labels[req.key])) return false;
  for (const req of fields) {
    if (req.key !== 'metadata.name') return false;
    if (!requirementHolds(req, node.metadata.name)) return false;
  }
  return true;
}

/** Whether any term matches: terms are ORed. No terms at all match nothing. */
export function anyTermMatches(terms: readonly NodeSelectorTerm[], node: Node): boolean {
  return terms.some((term) => termMatches(term, node));
}
