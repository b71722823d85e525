import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { upstreamGroupAlias } from '../../api/index.js';

/**
 * The audit policy: kube-apiserver's audit.k8s.io/v1 `Policy`, read from `--audit-policy-file`.
 * Rules are tried in order; the first that matches a request gives its level and the stages to
 * leave out. A request no rule matches is not logged (level None). A rule's fields are ANDed, each
 * list ORed; an empty or absent list matches everything. `resources` and `namespaces` only match
 * resource requests, `nonResourceURLs` only the others, as upstream.
 */

export const AUDIT_LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export const AUDIT_STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;

export type AuditLevel = (typeof AUDIT_LEVELS)[number];
export type AuditStage = (typeof AUDIT_STAGES)[number];

const stages = z.array(z.enum(AUDIT_STAGES)).optional();

const groupResources = z.strictObject({
  /** The API group; "" is the core group. Either spelling of svc's groups (`*.svc.io`, `*.k8s.io`) matches. */
  group: z.string().optional(),
  /** `pods`, `pods/log` (one subresource), `*` (every resource) or `*` followed by `/scale` (that subresource of each); empty: every resource of the group. */
  resources: z.array(z.string()).optional(),
  /** Object names; empty: any. */
  resourceNames: z.array(z.string()).optional(),
});

const policyRule = z.strictObject({
  level: z.enum(AUDIT_LEVELS),
  users: z.array(z.string()).optional(),
  userGroups: z.array(z.string()).optional(),
  verbs: z.array(z.string()).optional(),
  resources: z.array(groupResources).optional(),
  /** Namespaces; "" matches cluster-scoped resources. */
  namespaces: z.array(z.string()).optional(),
  /** Paths such as `/healthz`, or prefixes ending in `*` (`/api*`). */
  nonResourceURLs: z.array(z.string()).optional(),
  omitStages: stages,
  omitManagedFields: z.boolean().optional(),
});

export const auditPolicySchema = z.strictObject({
  apiVersion: z.enum(['audit.k8s.io/v1']),
  kind: z.literal('Policy'),
  metadata: z.record(z.string(), z.unknown()).optional(),
  rules: z.array(policyRule).min(1, 'a policy needs at least one rule'),
  /** Stages no request is logged at, whatever its rule says. */
  omitStages: stages,
  omitManagedFields: z.boolean().optional(),
});

export type AuditPolicy = z.infer<typeof auditPolicySchema>;
export type AuditPolicyRule = z.infer<typeof policyRule>;

/** What a policy is matched against. */
export interface AuditAttributes {
  readonly user: string;
  readonly groups: readonly string[];
  readonly verb: string;
  /** Set for resource requests; absent for non-resource ones (then `path` matters). */
  readonly resource?: {
    readonly group: string;
    readonly resource: string;
    readonly subresource: string | undefined;
    readonly namespace: string | undefined;
    readonly name: string | undefined;
  };
  readonly path: string;
}

/** What the policy decided for one request. */
export interface AuditDecision {
  readonly level: AuditLevel;
  readonly omitStages: ReadonlySet<AuditStage>;
  readonly omitManagedFields: boolean;
}

const NOT_LOGGED: AuditDecision = { level: 'None', omitStages: new Set(), omitManagedFields: false };

/** Parses a policy file's text (YAML or JSON); throws an Error naming what is wrong. */
export function parseAuditPolicy(text: string, source = 'audit policy'): AuditPolicy {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new Error(`${source}: not YAML or JSON: ${(error as Error).message}`);
  }
  const parsed = auditPolicySchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${source}: ${issue.path.join('.') || '(document)'}: ${issue.message}`);
  }
  return parsed.data;
}

const matchesList = (list: readonly string[] | undefined, value: string) => list === undefined || list.length === 0 || list.includes(value);

function matchesResource(rule: AuditPolicyRule, resource: NonNullable<AuditAttributes['resource']>): boolean {
  if (rule.nonResourceURLs?.length) return false;
  if (!matchesList(rule.namespaces, resource.namespace ?? '')) return false;
  if (!rule.resources?.length) return true;
  const group = upstreamGroupAlias(resource.group);
  const full = resource.subresource === undefined ? resource.resource : `${resource.resource}/${resource.subresource}`;
  return rule.resources.some((gr) => {
    if (upstreamGroupAlias(gr.group ?? '') !== group) return false;
    if (gr.resourceNames?.length && (resource.name === undefined || !gr.resourceNames.includes(resource.name))) return false;
    if (!gr.resources?.length) return true;
    return gr.resources.some(
      (r) =>
        r === full ||
        r === '*' ||
        (resource.subresource !== undefined && (r === `*/${resource.subresource}` || r === `${resource.resource}/*`)),
    );
  });
}

function matchesNonResource(rule: AuditPolicyRule, path: string): boolean {
  if (rule.resources?.length || rule.namespaces?.length) return false;
  if (!rule.nonResourceURLs?.length) return true;
  return rule.nonResourceURLs.some((url) => url === path || (url.endsWith('*') && path.startsWith(url.slice(0, -1))));
}

function matches(rule: AuditPolicyRule, attributes: AuditAttributes): boolean {
  if (!matchesList(rule.users, attributes.user)) return false;
  if (rule.userGroups?.length && !attributes.groups.some((g) => rule.userGroups!.includes(g))) return false;
  if (!matchesList(rule.verbs, attributes.verb)) return false;
  return attributes.resource !== undefined ? matchesResource(rule, attributes.resource) : matchesNonResource(rule, attributes.path);
}

/** The policy as a function of a request's attributes. */
export function auditEvaluator(policy: AuditPolicy): (attributes: AuditAttributes) => AuditDecision {
  const decisions = policy.rules.map((rule) => ({
    rule,
    decision: {
      level: rule.level,
      omitStages: new Set<AuditStage>([...(policy.omitStages ?? []), ...(rule.omitStages ?? [])]),
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
    } satisfies AuditDecision,
  }));
  return (attributes) => decisions.find(({ rule }) => matches(rule, attributes))?.decision ?? NOT_LOGGED;
}
