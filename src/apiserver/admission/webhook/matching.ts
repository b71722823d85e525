import { labelSelectorFromSpec, matchesLabels, upstreamGroupAlias, type LabelSelectorSpec, type RuleWithOperations } from '../../../api/index.js';
import type { ApiObject } from '../../api-object.js';
import type { AdmissionAttributes } from '../attributes.js';

/**
 * Whether a rule covers a request. Groups are compared the svc way (`apps`, `*.svc.io`), so a rule
 * written for upstream (`rbac.authorization.k8s.io`) matches too. A resource is `<resource>` (the
 * main resource only), `<resource>/<subresource>`, with `*` for either part: `*` alone never
 * matches a subresource, `*\/*` matches everything.
 */
export function ruleMatches(rule: RuleWithOperations, attrs: AdmissionAttributes): boolean {
  const { type } = attrs;
  if (!rule.operations.some((op) => op === '*' || op === attrs.operation)) return false;
  if (!rule.apiGroups.some((group) => group === '*' || upstreamGroupAlias(group) === type.group)) return false;
  if (!rule.apiVersions.some((version) => version === '*' || version === type.version)) return false;
  const scope = rule.scope ?? '*';
  if ((scope === 'Cluster' && type.namespaced) || (scope === 'Namespaced' && !type.namespaced)) return false;
  return rule.resources.some((entry) => {
    const [resource, sub] = entry.split('/') as [string, string | undefined];
    if (resource !== '*' && resource !== type.resource) return false;
    return sub === undefined ? attrs.subresource === '' : sub === '*' || sub === attrs.subresource;
  });
}

const EMPTY = (selector: LabelSelectorSpec | undefined) =>
  !selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0);

const matches = (selector: LabelSelectorSpec, labels: Readonly<Record<string, string>> | undefined) =>
  matchesLabels(labelSelectorFromSpec(selector), labels ?? {});

/** objectSelector: the new object's labels, or the old one's (a DELETE has only the old). */
export function objectSelected(selector: LabelSelectorSpec | undefined, attrs: AdmissionAttributes): boolean {
  if (EMPTY(selector)) return true;
  return [attrs.object, attrs.oldObject].some((o) => o !== undefined && matches(selector!, o.metadata.labels));
}

/**
 * namespaceSelector: the labels of the request's namespace; for a Namespace itself, its own
 * labels; other cluster-scoped objects are always selected.
 */
export function namespaceSelected(selector: LabelSelectorSpec | undefined, attrs: AdmissionAttributes, namespace: ApiObject | undefined): boolean {
  if (EMPTY(selector)) return true;
  if (attrs.type.group === '' && attrs.type.resource === 'namespaces') {
    return [attrs.object, attrs.oldObject].some((o) => o !== undefined && matches(selector!, o.metadata.labels));
  }
  if (!attrs.type.namespaced) return true;
  return matches(selector!, namespace?.metadata.labels);
}
