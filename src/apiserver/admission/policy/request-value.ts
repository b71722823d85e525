import { upstreamGroupName } from '../../../api/index.js';
import type { AdmissionAttributes } from '../attributes.js';

/**
 * CEL's `request`: the AdmissionRequest a webhook would get, with upstream group names
 * (`request.resource.group == "coordination.k8s.io"` in a policy written for Kubernetes works).
 */
export function requestValue(attrs: AdmissionAttributes): Record<string, unknown> {
  const { type } = attrs;
  const group = upstreamGroupName(type.group);
  const kind = { group, version: type.version, kind: type.kind };
  const resource = { group, version: type.version, resource: type.resource };
  const user = attrs.user;
  return {
    kind,
    resource,
    subResource: attrs.subresource,
    requestKind: kind,
    requestResource: resource,
    requestSubResource: attrs.subresource,
    name: attrs.name,
    namespace: attrs.namespace,
    operation: attrs.operation,
    userInfo: { username: user?.name ?? '', uid: user?.uid ?? '', groups: user?.groups ?? [], extra: user?.extra ?? {} },
    dryRun: attrs.dryRun,
    options: attrs.options ?? null,
  };
}
