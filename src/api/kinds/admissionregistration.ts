import { z } from 'zod';
import { labelSelectorFromSpec } from '../selectors/index.js';
import { base64Schema, conditionSchema, kindSchema, labelSelectorSchema } from './common.js';

/**
 * admissionregistration.svc.io/v1: MutatingWebhookConfiguration and ValidatingWebhookConfiguration.
 * The defaults are Kubernetes' v1 defaults, applied by the schema so the stored object shows them.
 * A configuration the server could never call (plain http, a timeout out of range, an unknown
 * side-effect class) is refused here, with a 422, rather than failing every request later.
 */

const OPERATIONS = ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;

export const ruleWithOperationsSchema = z.looseObject({
  operations: z.array(z.enum(OPERATIONS)).min(1),
  apiGroups: z.array(z.string()).min(1),
  apiVersions: z.array(z.string()).min(1),
  // pods, pods/status, *, */status, pods/* (a subresource after the slash).
  resources: z
    .array(z.string().regex(/^(\*|[a-z0-9.-]+)(\/(\*|[a-z0-9.-]+))?$/, { message: 'must be <resource>, <resource>/<subresource> or use * for either part' }))
    .min(1),
  scope: z.enum(['*', 'Cluster', 'Namespaced']).default('*'),
});

const httpsUrl = z.string().refine(
  (text) => {
    if (!URL.canParse(text)) return false;
    const url = new URL(text);
    return url.protocol === 'https:' && url.username === '' && url.password === '' && url.hash === '' && url.search === '';
  },
  { message: 'must be an https URL without user info, query or fragment' },
);

export const webhookClientConfigSchema = z
  .looseObject({
    url: httpsUrl.optional(),
    service: z
      .looseObject({
        namespace: z.string().min(1),
        name: z.string().min(1),
        path: z.string().regex(/^\//, { message: 'must start with /' }).optional(),
        port: z.int().min(1).max(65535).default(443),
      })
      .optional(),
    caBundle: base64Schema.optional(),
  })
  .refine((config) => (config.url === undefined) !== (config.service === undefined), {
    message: 'exactly one of url or service is required',
  });

/** A label selector that can be evaluated (valid keys and values), checked when the configuration is written. */
const selectorSchema = labelSelectorSchema.refine(
  (selector) => {
    try {
      labelSelectorFromSpec(selector);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'is not a valid label selector' },
);

const MATCH_CONDITION_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

const webhookFields = {
  name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?){2,}$/, {
    message: 'must be a fully qualified name with at least three segments (such as check.example.com)',
  }),
  clientConfig: webhookClientConfigSchema,
  rules: z.array(ruleWithOperationsSchema).optional(),
  failurePolicy: z.enum(['Ignore', 'Fail']).default('Fail'),
  matchPolicy: z.enum(['Exact', 'Equivalent']).default('Equivalent'),
  namespaceSelector: selectorSchema.default({}),
  objectSelector: selectorSchema.default({}),
  /** Required. `Some` and `Unknown` (v1beta1's) are kept so a webhook can declare side effects honestly: dry runs then refuse it. */
  sideEffects: z.enum(['None', 'NoneOnDryRun', 'Some', 'Unknown']),
  timeoutSeconds: z.int().min(1).max(30).default(10),
  /** svc sends admission.k8s.io/v1 only, so a webhook must accept it. */
  admissionReviewVersions: z.array(z.string().min(1)).refine((versions) => versions.includes('v1'), { message: 'must include v1, the only AdmissionReview version svc sends' }),
  /** svc does not evaluate CEL: a webhook with match conditions is refused (see docs/admission.md). */
  matchConditions: z
    .array(z.looseObject({ name: z.string().regex(MATCH_CONDITION_NAME), expression: z.string().min(1) }))
    .max(0, { message: 'match conditions (CEL) are not supported by svc' })
    .optional(),
};

export const validatingWebhookSchema = z.looseObject(webhookFields);
export const mutatingWebhookSchema = z.looseObject({
  ...webhookFields,
  reinvocationPolicy: z.enum(['Never', 'IfNeeded']).default('Never'),
});

const uniqueNames = (webhooks: readonly { name: string }[] | undefined) =>
  new Set((webhooks ?? []).map((w) => w.name)).size === (webhooks ?? []).length;
const UNIQUE = { message: 'webhook names must be unique within a configuration' };

export const validatingWebhookConfigurationSchema = kindSchema({
  webhooks: z.array(validatingWebhookSchema).optional().refine(uniqueNames, UNIQUE),
});

export const mutatingWebhookConfigurationSchema = kindSchema({
  webhooks: z.array(mutatingWebhookSchema).optional().refine(uniqueNames, UNIQUE),
});

export type RuleWithOperations = z.infer<typeof ruleWithOperationsSchema>;
export type WebhookClientConfig = z.infer<typeof webhookClientConfigSchema>;
export type ValidatingWebhook = z.infer<typeof validatingWebhookSchema>;
export type MutatingWebhook = z.infer<typeof mutatingWebhookSchema>;
export type ValidatingWebhookConfiguration = z.infer<typeof validatingWebhookConfigurationSchema>;
export type MutatingWebhookConfiguration = z.infer<typeof mutatingWebhookConfigurationSchema>;

/**
 * admissionregistration.svc.io/v1 ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding:
 * Kubernetes' v1 shape and defaults. The CEL in a policy is compiled when it is written (see
 * `policyExpressionCauses`, the type's write strategy), so an expression that does not parse is a
 * 422 naming its field; type errors against the matched kinds are the status loop's warnings.
 */

export const namedRuleWithOperationsSchema = ruleWithOperationsSchema.extend({
  resourceNames: z.array(z.string()).optional(),
});

export const matchResourcesSchema = z.looseObject({
  namespaceSelector: selectorSchema.default({}),
  objectSelector: selectorSchema.default({}),
  resourceRules: z.array(namedRuleWithOperationsSchema).optional(),
  excludeResourceRules: z.array(namedRuleWithOperationsSchema).optional(),
  matchPolicy: z.enum(['Exact', 'Equivalent']).default('Equivalent'),
});

const CEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const validationSchema = z.looseObject({
  expression: z.string().min(1),
  message: z.string().optional(),
  /** Unauthorized, Forbidden, Invalid or RequestEntityTooLarge, as upstream allows; Forbidden when unset. */
  reason: z.enum(['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge']).optional(),
  messageExpression: z.string().optional(),
});

export const auditAnnotationSchema = z.looseObject({
  key: z.string().regex(/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/, { message: 'must be a qualified name' }).max(63),
  valueExpression: z.string().min(1),
});

export const policyVariableSchema = z.looseObject({
  name: z.string().regex(CEL_NAME, { message: 'must be a valid CEL identifier' }),
  expression: z.string().min(1),
});

export const matchConditionSchema = z.looseObject({ name: z.string().regex(MATCH_CONDITION_NAME).max(63), expression: z.string().min(1) });

const uniqueBy =
  <T>(key: (item: T) => string) =>
  (items: readonly T[] | undefined) =>
    new Set((items ?? []).map(key)).size === (items ?? []).length;

export const validatingAdmissionPolicySpecSchema = z
  .looseObject({
    paramKind: z.looseObject({ apiVersion: z.string().min(1), kind: z.string().min(1) }).optional(),
    matchConstraints: matchResourcesSchema.refine((m) => (m.resourceRules ?? []).length > 0, { message: 'resourceRules is required' }),
    validations: z.array(validationSchema).optional(),
    failurePolicy: z.enum(['Ignore', 'Fail']).default('Fail'),
    auditAnnotations: z.array(auditAnnotationSchema).optional().refine(uniqueBy((a: { key: string }) => a.key), { message: 'audit annotation keys must be unique' }),
    matchConditions: z.array(matchConditionSchema).max(64).optional().refine(uniqueBy((c: { name: string }) => c.name), { message: 'match condition names must be unique' }),
    variables: z.array(policyVariableSchema).optional().refine(uniqueBy((v: { name: string }) => v.name), { message: 'variable names must be unique' }),
  })
  .refine((spec) => (spec.validations ?? []).length + (spec.auditAnnotations ?? []).length > 0, {
    message: 'validations or auditAnnotations must contain at least one item',
  });

export const expressionWarningSchema = z.looseObject({ fieldRef: z.string(), warning: z.string() });

export const validatingAdmissionPolicySchema = kindSchema({
  spec: validatingAdmissionPolicySpecSchema,
  status: z
    .looseObject({
      observedGeneration: z.int().optional(),
      typeChecking: z.looseObject({ expressionWarnings: z.array(expressionWarningSchema).optional() }).optional(),
      conditions: z.array(conditionSchema).optional(),
    })
    .optional(),
});

const VALIDATION_ACTIONS = ['Deny', 'Warn', 'Audit'] as const;

export const paramRefSchema = z
  .looseObject({
    name: z.string().optional(),
    namespace: z.string().optional(),
    selector: selectorSchema.optional(),
    parameterNotFoundAction: z.enum(['Allow', 'Deny']).optional(),
  })
  .refine((ref) => (ref.name === undefined || ref.name === '') !== (ref.selector === undefined), { message: 'exactly one of name or selector is required' })
  .refine((ref) => ref.parameterNotFoundAction !== undefined, { message: 'parameterNotFoundAction is required' });

export const validatingAdmissionPolicyBindingSchema = kindSchema({
  spec: z.looseObject({
    policyName: z.string().min(1),
    paramRef: paramRefSchema.optional(),
    matchResources: matchResourcesSchema.optional(),
    validationActions: z
      .array(z.enum(VALIDATION_ACTIONS))
      .min(1)
      .refine((actions) => new Set(actions).size === actions.length, { message: 'must not contain duplicates' })
      .refine((actions) => !(actions.includes('Deny') && actions.includes('Warn')), { message: 'Deny and Warn may not be used together' }),
  }),
});

export type NamedRuleWithOperations = z.infer<typeof namedRuleWithOperationsSchema>;
export type MatchResources = z.infer<typeof matchResourcesSchema>;
export type PolicyValidation = z.infer<typeof validationSchema>;
export type AuditAnnotation = z.infer<typeof auditAnnotationSchema>;
export type PolicyVariable = z.infer<typeof policyVariableSchema>;
export type ValidatingAdmissionPolicy = z.infer<typeof validatingAdmissionPolicySchema>;
export type ValidatingAdmissionPolicyBinding = z.infer<typeof validatingAdmissionPolicyBindingSchema>;
export type ParamRef = z.infer<typeof paramRefSchema>;
export type ValidationAction = (typeof VALIDATION_ACTIONS)[number];
