import type { Environment, ParseResult } from '@marcbachmann/cel-js';
import { admissionEnvironment } from './environment.js';

/** A compiled expression: called with the variables, it returns the CEL value or throws the evaluation's error. */
export type CelProgram = (variables: Readonly<Record<string, unknown>>) => unknown;

export type Compiled = { readonly ok: true; readonly program: CelProgram } | { readonly ok: false; readonly error: string };

/** The first line of an evaluator error (the rest is a caret picture of the source). */
export const celErrorText = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

/**
 * Parses and checks an expression in the admission environment (every variable `dyn`): a syntax
 * error, an undeclared variable or a function no overload takes fails, as upstream's compile step
 * fails at write time. Types of the matched kinds are the status loop's (type-check.ts).
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
  return { ok: true, program: parsed as CelProgram };
}
