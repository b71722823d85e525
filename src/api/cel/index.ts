export { toCel, fromCel } from './cel-values.js';
export { AuthorizerValue, type CelAuthorize, type CelCheckSubject, type CelDecision, type CelPathCheck, type CelResourceCheck } from './authorizer-values.js';
export { ADMISSION_VARIABLES, admissionEnvironment, baseEnvironment, declareAdmissionVariables } from './environment.js';
export { celErrorText, compileExpression, type CelProgram, type Compiled } from './compile.js';
export { policyExpressionCauses, policyExpressions } from './policy-expressions.js';
export { celSchemaOf, celSchemaOfZod, type CelSchema } from './schema-types.js';
export { typeCheckPolicy, type CheckedKind, type ExpressionWarning } from './type-check.js';
