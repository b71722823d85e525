import { badRequest } from '../status-builders.js';
import type { ResourceType } from '../resource-type.js';

/**
 * Field selectors: comma-separated `field=value`, `field==value` or `field!=value`, only on the
 * fields the type lists. In a value, `\` escapes `,` `=` `!` and itself.
 */

export type FieldOperator = 'Equals' | 'NotEquals';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

/** No requirements selects everything. */
export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
}

const ESCAPABLE = new Set(['\\', ',', '=', '!']);

// Splits on the separators that are not escaped, keeping the escapes for the next step.
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

// The first operator wins, so a value may hold an unescaped `!`; `!=` is tried before `=`.
function splitTerm(term: string): { field: string; operator: FieldOperator; raw: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    for (const [symbol, operator] of [['!=', 'NotEquals'], ['==', 'Equals'], ['=', 'Equals']] as const) {
      if (term.startsWith(symbol, i)) return { field: term.slice(0, i).trim(), operator, raw: term.slice(i + symbol.length) };
    }
  }
  return undefined;
}

function unescape(raw: string, term: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '\\') {
      const next = raw[i + 1];
      if (next === undefined || !ESCAPABLE.has(next)) {
        throw badRequest(`invalid field selector '${term}': invalid escape sequence '\\${next ?? ''}'`);
      }
      out += next;
      i++;
    } else if (ch === '=') {
      throw badRequest(`invalid field selector '${term}': unescaped '=' in the value`);
    } else {
      out += ch;
    }
  }
  return out;
}

/** The `\`-escaped form of a value, for building selector text. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=!]/g, (ch) => `\\${ch}`);
}

export function parseFieldSelector(text: string, allowedFields: Iterable<string>): FieldSelector {
  const allowed = new Set(allowedFields);
  if (text.trim() === '') return { requirements: [] };
  const requirements = splitTerms(text).map((term): FieldRequirement => {
    const parts = splitTerm(term);
    if (!parts) throw badRequest(`invalid field selector '${term}': expected field=value, field==value or field!=value`);
    if (!allowed.has(parts.field)) throw badRequest(`field label not supported: ${parts.field}`);
    return { field: parts.field, operator: parts.operator, value: unescape(parts.raw, term) };
  });
  return { requirements };
}

/** Whether `object` meets every requirement, reading fields with the type's accessors. */
export function matchesFields(selector: FieldSelector, type: ResourceType, object: Readonly<Record<string, unknown>>): boolean {
  return selector.requirements.every(({ field, operator, value }) => {
    const actual = type.fieldSelectors[field]?.(object) ?? '';
    return operator === 'Equals' ? actual === value : actual !== value;
  });
}
