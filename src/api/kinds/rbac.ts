import { z } from 'zod';
import { kindSchema, labelSelectorSchema } from './common.js';

/** rbac.authorization.svc.io/v1: roles, cluster roles and their bindings. */

export const policyRuleSchema = z.looseObject({
  verbs: z.array(z.string()).min(1),
  apiGroups: z.array(z.string()).optional(),
  resources: z.array(z.string()).optional(),
  resourceNames: z.array(z.string()).optional(),
  nonResourceURLs: z.array(z.string()).optional(),
});

export const subjectSchema = z.looseObject({
  kind: z.enum(['ServiceAccount', 'User', 'Group']),
  apiGroup: z.string().optional(),
  name: z.string().min(1),
  namespace: z.string().optional(),
});

const roleRef = (kinds: readonly [string, ...string[]]) =>
  z.looseObject({
    apiGroup: z.string(),
    kind: z.enum(kinds),
    name: z.string().min(1),
  });

export const roleSchema = kindSchema({
  rules: z.array(policyRuleSchema).optional(),
});

export const clusterRoleSchema = kindSchema({
  rules: z.array(policyRuleSchema).optional(),
  aggregationRule: z.looseObject({ clusterRoleSelectors: z.array(labelSelectorSchema).optional() }).optional(),
});

export const roleBindingSchema = kindSchema({
  subjects: z.array(subjectSchema).optional(),
  roleRef: roleRef(['Role', 'ClusterRole']),
});

/** A cluster-wide binding can only grant a ClusterRole. */
export const clusterRoleBindingSchema = kindSchema({
  subjects: z.array(subjectSchema).optional(),
  roleRef: roleRef(['ClusterRole']),
});

export type PolicyRule = z.infer<typeof policyRuleSchema>;
export type Subject = z.infer<typeof subjectSchema>;
export type Role = z.infer<typeof roleSchema>;
export type ClusterRole = z.infer<typeof clusterRoleSchema>;
export type RoleBinding = z.infer<typeof roleBindingSchema>;
export type ClusterRoleBinding = z.infer<typeof clusterRoleBindingSchema>;
