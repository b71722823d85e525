import { fieldInvalid } from '../validation/causes.js';
import type { FieldCause } from '../status-error.js';
import { compileExpression } from './compile.js';

interface PolicySpecExpressions {
  readonly validations?: readonly { readonly expression?: string; readonly messageExpression?: string }[] | undefined;
  readonly matchConditions?: readonly { readonly expression?: string }[] | undefined;
  readonly auditAnnotations?: readonly { readonly valueExpression?: string }[] | undefined;
  readonly variables?: readonly { readonly expression?: string }[] | undefined;
}

/** Every CEL expression of a ValidatingAdmissionPolicy's spec with its field path. */
export function policyExpressions(spec: PolicySpecExpressions | undefined): { field: string; expression: string }[] {
  const out: { field: string; expression: string }[] = [];
  const add = (field: string, expression: string | undefined) => {
    if (typeof expression === 'string' && expression !== '') out.push({ field, expression });
  };
  spec?.variables?.forEach((v, i) => add(`spec.variables[${i}].expression`, v.expression));
  spec?.matchConditions?.forEach((c, i) => add(`spec.matchConditions[${i}].expression`, c.expression));
  spec?.validations?.forEach((v, i) => {
    add(`spec.validations[${i}].expression`, v.expression);
    add(`spec.validations[${i}].messageExpression`, v.messageExpression);
  });
  spec?.auditAnnotations?.forEach((a, i) => add(`spec.auditAnnotations[${i}].valueExpression`, a.valueExpression));
  return out;
}

/** The 422 causes of a policy whose expressions do not compile, each naming its field. */
export function policyExpressionCauses(object: Readonly<Record<string, unknown>>): FieldCause[] {
  return policyExpressions(object['spec'] as PolicySpecExpressions | undefined).flatMap(({ field, expression }) => {
    const compiled = compileExpression(expression);
    return compiled.ok ? [] : [fieldInvalid(field, expression, compiled.error)];
  });
}
