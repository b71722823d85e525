import { celErrorText, type Compiled } from '../../../api/index.js';
import type { CompiledPolicy } from './compiled-policy.js';

/** What a validation that did not pass says, before the binding's actions decide what it does. */
export interface PolicyFailure {
  readonly message: string;
  /** Forbidden unless the validation names another. */
  readonly reason: 'Unauthorized' | 'Forbidden' | 'Invalid' | 'RequestEntityTooLarge';
  /** The validation's index, absent for a failure of the policy itself (an evaluation error, missing params). */
  readonly expressionIndex?: number;
}

/** The result of one policy under one binding with one params object. */
export interface BindingOutcome {
  /** False when a match condition left the request out. */
  readonly matched: boolean;
  readonly failures: readonly PolicyFailure[];
  /** `<key>` → value of the policy's auditAnnotations (the caller prefixes the policy's name). */
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

class ExpressionError extends Error {}

function run(compiled: Compiled, context: Readonly<Record<string, unknown>>): unknown {
  if (!compiled.ok) throw new ExpressionError(compiled.error);
  try {
    return compiled.program(context);
  } catch (error) {
    throw new ExpressionError(celErrorText(error));
  }
}

/**
 * `variables`: each one evaluated the first time an expression reads it, then remembered for the
 * rest of this evaluation (upstream's lazy composition); an error is remembered too.
 */
function lazyVariables(policy: CompiledPolicy, context: Record<string, unknown>): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const variable of policy.variables) {
    let state: { value: unknown } | { error: unknown } | undefined;
    Object.defineProperty(variables, variable.name, {
      enumerable: true,
      get() {
        if (state === undefined) {
          try {
            state = { value: run(variable.compiled, context) };
          } catch (error) {
            state = { error };
          }
        }
        if ('error' in state) throw state.error;
        return state.value;
      },
    });
  }
  return variables;
}

const errorText = (expression: string, error: unknown) => `expression '${expression}' resulted in error: ${error instanceof Error ? error.message : String(error)}`;

/**
 * Evaluates a policy for one binding and params object: match conditions, then every validation
 * and audit annotation. An expression that fails to evaluate is a failure when the policy's
 * failurePolicy is Fail and is passed over when it is Ignore; a match condition that fails to
 * evaluate under Fail is a failure of the whole policy.
 */
export function evaluateBinding(policy: CompiledPolicy, base: Readonly<Record<string, unknown>>, params: unknown): BindingOutcome {
  // The request's values stay lazy: their getters are copied, not read.
  const context = Object.defineProperties({}, Object.getOwnPropertyDescriptors(base)) as Record<string, unknown>;
  context['params'] = params;
  context['variables'] = lazyVariables(policy, context);
  const fail = policy.policy.spec.failurePolicy !== 'Ignore';
  const failures: PolicyFailure[] = [];

  for (const condition of policy.matchConditions) {
    let result: unknown;
    try {
      result = run(condition.compiled, context);
      if (typeof result !== 'boolean') throw new ExpressionError('match condition did not evaluate to a bool');
    } catch (error) {
      if (!fail) return { matched: false, failures: [], auditAnnotations: {} };
      return { matched: true, failures: [{ message: `failed to evaluate match condition ${JSON.stringify(condition.name)}: ${errorText(condition.expression, error)}`, reason: 'Forbidden' }], auditAnnotations: {} };
    }
    if (!result) return { matched: false, failures: [], auditAnnotations: {} };
  }

  policy.validations.forEach(({ validation, expression, messageExpression }, index) => {
    let result: unknown;
    try {
      result = run(expression, context);
      if (typeof result !== 'boolean') throw new ExpressionError(`expression '${validation.expression}' must evaluate to a bool`);
    } catch (error) {
      if (fail) failures.push({ message: errorText(validation.expression, error), reason: 'Forbidden', expressionIndex: index });
      return;
    }
    if (result) return;
    let message = validation.message;
    if (messageExpression !== undefined) {
      // A message expression that errs or gives an empty or multi-line string falls back to the static message.
      try {
        const text = run(messageExpression, context);
        if (typeof text === 'string' && text.trim() !== '' && !text.includes('\n')) message = text;
      } catch {
        // fall back
      }
    }
    failures.push({ message: message || `failed expression: ${validation.expression}`, reason: validation.reason ?? 'Forbidden', expressionIndex: index });
  });

  const auditAnnotations: Record<string, string> = {};
  for (const annotation of policy.auditAnnotations) {
    try {
      const value = run(annotation.compiled, context);
      if (value === null) continue;
      if (typeof value !== 'string') throw new ExpressionError('valueExpression must evaluate to a string or null');
      if (value !== '') auditAnnotations[annotation.key] = value;
    } catch (error) {
      if (fail) failures.push({ message: errorText(annotation.expression, error), reason: 'Forbidden' });
    }
  }
  return { matched: true, failures, auditAnnotations };
}
