import type { Node } from '../../src/api/index.js';

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

const INTEGER = /^-?\d+$/;

function requirementHolds(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      // One integer value on each side, else the requirement matches nothing (as Kubernetes).
      if (value === undefined || values.length !== 1 || !INTEGER.test(value) || !INTEGER.test(values[0]!)) return false;
      const have = Number(value);
      const want = Number(values[0]);
      return req.operator === 'Gt' ? have > want : have < want;
    }
    default:
      return false;
  }
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
