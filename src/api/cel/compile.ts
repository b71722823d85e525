import type { Environment, ParseResult } from '@marcbachmann/cel-js';
import { admissionEnvironment, RE2_MATCHES } from './environment.js';
import { re2PatternError } from './regex.js';

/** A compiled expression: called with the variables, it returns the CEL value or throws the evaluation's error. */
export type CelProgram = (variables: Readonly<Record<string, unknown>>) => unknown;

export type Compiled = { readonly ok: true; readonly program: CelProgram } | { readonly ok: false; readonly error: string };

/** The first line of an evaluator error (the rest is a caret picture of the source). */
export const celErrorText = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

interface AstNode {
  readonly op: string;
  readonly args: unknown;
  readonly start: number;
  readonly end: number;
}

const isNode = (value: unknown): value is AstNode => typeof value === 'object' && value !== null && typeof (value as AstNode).op === 'string';

/**
 * The calls of `matches` in an expression (`x.matches(p)`, the only form the evaluator has: an
 * `rcall` node `[name, receiver, [p]]`): where the name is in the source, and the pattern.
 */
function matchesCalls(node: unknown, source: string, out: { at: number; pattern: unknown }[]): void {
  if (Array.isArray(node)) {
    for (const item of node) matchesCalls(item, source, out);
    return;
  }
  if (!isNode(node)) return;
  const args = node.args;
  if (Array.isArray(args) && args[0] === 'matches') {
    if (node.op === 'rcall' && isNode(args[1]) && Array.isArray(args[2]) && args[2].length === 1 && isNode(args[2][0])) {
      const between = source.slice(args[1].end, args[2][0].start);
      const offset = between.search(/\bmatches\b/);
      if (offset >= 0) out.push({ at: args[1].end + offset, pattern: args[2][0] });
    }
  }
  if (Array.isArray(args)) for (const arg of args) matchesCalls(arg, source, out);
}

/**
 * Parses and checks an expression in the admission environment (every variable `dyn`): a syntax
 * error, an undeclared variable or a function no overload takes fails, as upstream's compile step
 * fails at write time; so does a literal pattern RE2 refuses. The program that runs is the same
 * expression with each `matches` renamed to svc's RE2 one (regex.ts). Types of the matched kinds
 * are the status loop's (type-check.ts).
 */
export function compileExpression(expression: string, env: Environment = admissionEnvironment()): Compiled {
  let parsed: ParseResult;
  try {
    parsed = env.parse(expression);
  } catch (error) {
    return { ok: false, error: `compilation failed: ${celErrorText(error)}` };
  }
  const checked = parsed.check();
  if (!checked.valid) return { ok: false, error: `compilation failed: ${celErrorText(checked.error)}` };
  const calls: { at: number; pattern: unknown }[] = [];
  matchesCalls(parsed.ast, expression, calls);
  if (calls.length === 0) return { ok: true, program: parsed as CelProgram };
  for (const { pattern } of calls) {
    if (isNode(pattern) && pattern.op === 'value' && typeof pattern.args === 'string') {
      const problem = re2PatternError(pattern.args);
      if (problem !== undefined) return { ok: false, error: `compilation failed: invalid regular expression ${JSON.stringify(pattern.args)}: ${problem}` };
    }
  }
  let rewritten = expression;
  for (const { at } of [...calls].sort((a, b) => b.at - a.at)) rewritten = `${rewritten.slice(0, at)}${RE2_MATCHES}${rewritten.slice(at + 'matches'.length)}`;
  try {
    return { ok: true, program: env.parse(rewritten) as CelProgram };
  } catch (error) {
    return { ok: false, error: `compilation failed: ${celErrorText(error)}` };
  }
}
