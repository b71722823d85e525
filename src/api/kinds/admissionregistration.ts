import { z } from 'zod';
import { labelSelectorFromSpec } from '../selectors/index.js';
import { base64Schema, kindSchema, labelSelectorSchema } from './common.js';

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
