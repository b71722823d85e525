import { compileExpression, type Compiled, type PolicyValidation, type ValidatingAdmissionPolicy } from '../../../api/index.js';

export interface CompiledValidation {
  readonly validation: PolicyValidation;
  readonly expression: Compiled;
  readonly messageExpression: Compiled | undefined;
}

/** One policy version's expressions, compiled once. */
export interface CompiledPolicy {
  readonly policy: ValidatingAdmissionPolicy;
  readonly matchConditions: readonly { readonly name: string; readonly expression: string; readonly compiled: Compiled }[];
  readonly variables: readonly { readonly name: string; readonly expression: string; readonly compiled: Compiled }[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly { readonly key: string; readonly expression: string; readonly compiled: Compiled }[];
}

const compiled = new WeakMap<object, CompiledPolicy>();

/**
 * A policy's compiled form, made the first time a request meets this version of it and kept with
 * it: admission's objects are one frozen value per stored version (CachedObjects), so the cache is
 * keyed by that value and a new version compiles anew. An expression that does not compile (a
 * policy stored before svc checked, or by another server) stays an error to meet at evaluation.
 */
export function compiledPolicy(policy: ValidatingAdmissionPolicy): CompiledPolicy {
  let done = compiled.get(policy);
  if (done === undefined) {
    const spec = policy.spec;
    done = {
      policy,
      matchConditions: (spec.matchConditions ?? []).map((c) => ({ name: c.name, expression: c.expression, compiled: compileExpression(c.expression) })),
      variables: (spec.variables ?? []).map((v) => ({ name: v.name, expression: v.expression, compiled: compileExpression(v.expression) })),
      validations: (spec.validations ?? []).map((validation) => ({
        validation,
        expression: compileExpression(validation.expression),
        messageExpression: validation.messageExpression ? compileExpression(validation.messageExpression) : undefined,
      })),
      auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({ key: a.key, expression: a.valueExpression, compiled: compileExpression(a.valueExpression) })),
    };
    compiled.set(policy, done);
  }
  return done;
}
