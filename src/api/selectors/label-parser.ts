import { badRequest } from '../status-builders.js';
import type { StatusError } from '../status-error.js';
import { validateLabelValue, validateQualifiedName } from '../validation/labels.js';
import { parseInt64, type LabelOperator, type LabelRequirement, type LabelSelector } from './label-selector.js';

/**
 * Parses `labelSelector` text: comma-separated requirements, each `k=v`, `k==v`, `k!=v`,
 * `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>n` or `k<n`, with any whitespace between tokens.
 * Anything else is a 400 `unable to parse requirement: ...`.
 */

type TokenType = 'identifier' | 'in' | 'notin' | '(' | ')' | ',' | '=' | '==' | '!=' | '!' | '>' | '<' | 'end';

interface Token {
  readonly type: TokenType;
  readonly text: string;
  readonly at: number;
}

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const TWO_CHAR = new Set(['==', '!=']);
const WHITESPACE = /\s/;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (WHITESPACE.test(ch)) {
      i++;
    } else if (SPECIAL.has(ch)) {
      const pair = text.slice(i, i + 2);
      const symbol = TWO_CHAR.has(pair) ? pair : ch;
      tokens.push({ type: symbol as TokenType, text: symbol, at: i });
      i += symbol.length;
    } else {
      const start = i;
      while (i < text.length && !WHITESPACE.test(text[i]!) && !SPECIAL.has(text[i]!)) i++;
      const word = text.slice(start, i);
      tokens.push({ type: word === 'in' || word === 'notin' ? word : 'identifier', text: word, at: start });
    }
  }
  tokens.push({ type: 'end', text: '', at: text.length });
  return tokens;
}

const OPERATORS: Partial<Record<TokenType, LabelOperator>> = {
  '=': 'Equals',
  '==': 'Equals',
  '!=': 'NotEquals',
  in: 'In',
  notin: 'NotIn',
  '>': 'GreaterThan',
  '<': 'LessThan',
};


const fail = (detail: string): StatusError => badRequest(`unable to parse requirement: ${detail}`);

const describe = (token: Token) => (token.type === 'end' ? 'end of string' : `'${token.text}'`);

class Parser {
  readonly #tokens: readonly Token[];
  #position = 0;

  constructor(tokens: readonly Token[]) {
    this.#tokens = tokens;
  }

  parse(): LabelSelector {
    const requirements: LabelRequirement[] = [];
    if (this.peek().type === 'end') return { requirements };
    for (;;) {
      requirements.push(this.requirement());
      const next = this.next();
      if (next.type === 'end') return { requirements };
      if (next.type !== ',') throw this.unexpected(next, "',' or end of string");
    }
  }

  private requirement(): LabelRequirement {
    const first = this.next();
    if (first.type === '!') {
      return { key: this.key(this.expectIdentifier()), operator: 'DoesNotExist', values: [] };
    }
    if (first.type !== 'identifier') throw this.unexpected(first, "'!' or a label key");
    const key = this.key(first);
    const after = this.peek();
    if (after.type === ',' || after.type === 'end') return { key, operator: 'Exists', values: [] };
    const operator = OPERATORS[this.next().type];
    if (!operator) throw this.unexpected(after, 'in, notin, =, ==, !=, >, <');
    if (operator === 'In' || operator === 'NotIn') return { key, operator, values: this.valueSet(after.text) };
    const value = this.singleValue();
    if ((operator === 'GreaterThan' || operator === 'LessThan') && parseInt64(value) === undefined) {
      throw fail(`the value of '${key}${after.text}' must be a 64-bit integer, not '${value}'`);
    }
    return { key, operator, values: [value] };
  }

  // `k=` compares with the empty value, which is a valid label value.
  private singleValue(): string {
    const token = this.peek();
    if (token.type === ',' || token.type === 'end') return '';
    return this.value(this.expectIdentifier());
  }

  private valueSet(operator: string): string[] {
    const open = this.next();
    if (open.type !== '(') throw this.unexpected(open, `'(' after '${operator}'`);
    const values: string[] = [];
    for (;;) {
      const token = this.next();
      if (token.type === 'identifier') {
        values.push(this.value(token));
        const after = this.next();
        if (after.type === ')') break;
        if (after.type !== ',') throw this.unexpected(after, "',' or ')'");
      } else if (token.type === ',' || token.type === ')') {
        // An empty slot in the list, as in `(a,,b)` or `(a,)`, is the empty value.
        if (token.type === ',' || values.length > 0) values.push('');
        if (token.type === ')') break;
      } else {
        throw this.unexpected(token, "a value, ',' or ')'");
      }
    }
    if (values.length === 0) throw fail(`the value set of '${operator}' must not be empty`);
    return values;
  }

  private key(token: Token): string {
    const problems = validateQualifiedName(token.text);
    if (problems.length > 0) throw fail(`invalid label key '${token.text}': ${problems.join('; ')}`);
    return token.text;
  }

  private value(token: Token): string {
    const problems = validateLabelValue(token.text);
    if (problems.length > 0) throw fail(`invalid label value '${token.text}': ${problems.join('; ')}`);
    return token.text;
  }

  private expectIdentifier(): Token {
    const token = this.next();
    if (token.type !== 'identifier') throw this.unexpected(token, 'an identifier');
    return token;
  }

  private unexpected(token: Token, expected: string): StatusError {
    return fail(`found ${describe(token)} at position ${token.at}, expected ${expected}`);
  }

  private peek(): Token {
    return this.#tokens[this.#position]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.type !== 'end') this.#position++;
    return token;
  }
}

export function parseLabelSelector(text: string): LabelSelector {
  return new Parser(tokenize(text)).parse();
}
