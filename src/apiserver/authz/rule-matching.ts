import { upstreamGroupAlias, type PolicyRule } from '../../api/index.js';
import type { Attributes, ResourceAttributes } from './attributes.js';

/**
 * Whether one PolicyRule grants a request, by Kubernetes' rules:
 *
 * - verbs: the request's verb, or `*`;
 * - apiGroups: the request's group or `*`; `x.k8s.io` and `x.svc.io` are one group, so rules
 *   written for upstream clusters work here unchanged;
 * - resources: `*` (every resource and subresource), the resource (`pods`), the resource with its
 *   subresource (`pods/log`: the parent alone does not grant its subresources), or `*\/log` (that
 *   subresource of every resource);
 * - resourceNames: empty grants every name; else the request must name one of them (a list or a
 *   create, which names nothing, is not granted by a rule with names);
 * - nonResourceURLs: `*`, the exact path, or a prefix ending in `*`.
 */
export function ruleAllows(rule: PolicyRule, a: Attributes): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (a.kind === 'nonResource') return nonResourceURLMatches(rule, a.path);
  return apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, a) && resourceNameMatches(rule, a.name);
}

const verbMatches = (rule: PolicyRule, verb: string) => rule.verbs.includes('*') || rule.verbs.includes(verb);

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  const groups = rule.apiGroups;
  if (!groups) return false;
  const wanted = upstreamGroupAlias(group);
  for (const g of groups) if (g === '*' || upstreamGroupAlias(g) === wanted) return true;
  return false;
}

function resourceMatches(rule: PolicyRule, a: ResourceAttributes): boolean {
  const resources = rule.resources;
  if (!resources) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const r of resources) {
    if (r === '*' || r === combined) return true;
    if (a.subresource && r === `*/${a.subresource}`) return true;
  }
  return false;
}

function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames;
  if (!names || names.length === 0) return true;
  return name !== '' && names.includes(name);
}

function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  const urls = rule.nonResourceURLs;
  if (!urls) return false;
  for (const url of urls) {
    if (url === '*' || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}
