import { celErrorText } from './compile.js';
import { baseEnvironment, declareAdmissionVariables } from './environment.js';
import { policyExpressions } from './policy-expressions.js';
import type { CelSchema } from './schema-types.js';

/** A kind a policy matches, with what the checker knows of it. */
export interface CheckedKind {
  /** `apps/v1, Kind=Deployment`: how a warning names the kind (upstream's wording). */
  readonly label: string;
  readonly schema: CelSchema;
}

export interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

let typeCounter = 0;

/**
 * Type-checks every expression of a policy spec against each matched kind (`object` and
 * `oldObject` of that kind, `params` of the param kind when it is known), as upstream's
 * validatingadmissionpolicy-status controller does. One warning per expression, naming each kind
 * it fails for. Expressions that do not compile at all never get here (the API refuses them).
 */
export function typeCheckPolicy(spec: unknown, kinds: readonly CheckedKind[], params: CelSchema | undefined): ExpressionWarning[] {
  const expressions = policyExpressions(spec as Parameters<typeof policyExpressions>[0]);
  if (expressions.length === 0 || kinds.length === 0) return [];
  const envs = kinds.map((kind) => {
    const env = baseEnvironment();
    const typed: Record<string, string> = {};
    if (typeof kind.schema === 'string') {
      typed['object'] = typed['oldObject'] = kind.schema;
    } else {
      const name = `svc.checked.Object${++typeCounter}`;
      env.registerType({ name, schema: kind.schema } as never);
      typed['object'] = typed['oldObject'] = name;
    }
    if (params !== undefined) {
      if (typeof params === 'string') typed['params'] = params;
      else {
        const name = `svc.checked.Params${++typeCounter}`;
        env.registerType({ name, schema: params } as never);
        typed['params'] = name;
      }
    }
    return { kind, env: declareAdmissionVariables(env, typed) };
  });
  const warnings: ExpressionWarning[] = [];
  for (const { field, expression } of expressions) {
    const problems: string[] = [];
    for (const { kind, env } of envs) {
      let error: unknown;
      try {
        const result = env.check(expression);
        if (!result.valid) error = result.error;
      } catch (thrown) {
        error = thrown;
      }
      if (error !== undefined) problems.push(`${kind.label}: ERROR: ${error instanceof Error ? error.message : celErrorText(error)}`);
    }
    if (problems.length > 0) warnings.push({ fieldRef: field, warning: problems.join('\n') });
  }
  return warnings;
}
