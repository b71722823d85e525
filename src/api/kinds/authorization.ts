import { z } from 'zod';
import { kindSchema } from './common.js';

/**
 * authorization.svc.io/v1 (alias authorization.k8s.io/v1): the access reviews. They are virtual:
 * a POST asks a question and the answer comes back in `status`; nothing is stored.
 */

export const fieldSelectorAttributesSchema = z.looseObject({
  rawSelector: z.string().optional(),
  requirements: z.array(z.looseObject({ key: z.string(), operator: z.string(), values: z.array(z.string()).optional() })).optional(),
});

export const labelSelectorAttributesSchema = fieldSelectorAttributesSchema;

export const resourceAttributesSchema = z.looseObject({
  namespace: z.string().optional(),
  verb: z.string().optional(),
  group: z.string().optional(),
  version: z.string().optional(),
  resource: z.string().optional(),
  subresource: z.string().optional(),
  name: z.string().optional(),
  fieldSelector: fieldSelectorAttributesSchema.optional(),
  labelSelector: labelSelectorAttributesSchema.optional(),
});

export const nonResourceAttributesSchema = z.looseObject({
  path: z.string().optional(),
  verb: z.string().optional(),
});

/** The answer. Optional on the way in: clients send an empty status (protobuf bodies always do). */
export const subjectAccessReviewStatusSchema = z.looseObject({
  allowed: z.boolean().optional(),
  denied: z.boolean().optional(),
  reason: z.string().optional(),
  evaluationError: z.string().optional(),
});

const attributes = {
  resourceAttributes: resourceAttributesSchema.optional(),
  nonResourceAttributes: nonResourceAttributesSchema.optional(),
};

/** Whose access is asked about: a user, its groups, extra attributes and uid. */
export const subjectAccessReviewSpecSchema = z.looseObject({
  ...attributes,
  user: z.string().optional(),
  groups: z.array(z.string()).optional(),
  extra: z.record(z.string(), z.array(z.string())).optional(),
  uid: z.string().optional(),
});

/** The caller's own access: no user fields, they come from the request's credentials. */
export const selfSubjectAccessReviewSpecSchema = z.looseObject(attributes);

export const subjectAccessReviewSchema = kindSchema({
  spec: subjectAccessReviewSpecSchema,
  status: subjectAccessReviewStatusSchema.optional(),
});

export const localSubjectAccessReviewSchema = subjectAccessReviewSchema;

export const selfSubjectAccessReviewSchema = kindSchema({
  spec: selfSubjectAccessReviewSpecSchema,
  status: subjectAccessReviewStatusSchema.optional(),
});

export const resourceRuleSchema = z.looseObject({
  verbs: z.array(z.string()).optional(),
  apiGroups: z.array(z.string()).optional(),
  resources: z.array(z.string()).optional(),
  resourceNames: z.array(z.string()).optional(),
});

export const nonResourceRuleSchema = z.looseObject({
  verbs: z.array(z.string()).optional(),
  nonResourceURLs: z.array(z.string()).optional(),
});

export const selfSubjectRulesReviewSchema = kindSchema({
  spec: z.looseObject({ namespace: z.string().optional() }),
  status: z
    .looseObject({
      resourceRules: z.array(resourceRuleSchema).optional(),
      nonResourceRules: z.array(nonResourceRuleSchema).optional(),
      incomplete: z.boolean().optional(),
      evaluationError: z.string().optional(),
    })
    .optional(),
});

export type ResourceAttributes = z.infer<typeof resourceAttributesSchema>;
export type NonResourceAttributes = z.infer<typeof nonResourceAttributesSchema>;
export type SubjectAccessReviewStatus = z.infer<typeof subjectAccessReviewStatusSchema>;
export type SubjectAccessReview = z.infer<typeof subjectAccessReviewSchema>;
export type LocalSubjectAccessReview = z.infer<typeof localSubjectAccessReviewSchema>;
export type SelfSubjectAccessReview = z.infer<typeof selfSubjectAccessReviewSchema>;
export type SelfSubjectRulesReview = z.infer<typeof selfSubjectRulesReviewSchema>;
export type ResourceRule = z.infer<typeof resourceRuleSchema>;
export type NonResourceRule = z.infer<typeof nonResourceRuleSchema>;
