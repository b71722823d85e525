import type { CelDecision, CelPathCheck, CelResourceCheck } from '../../../api/index.js';
import type { UserInfo } from '../../authn/user.js';
import type { Authorizer } from '../../authz/index.js';

/** CEL's authorizer checks as the server's authorizer chain decides them (the same decision a SubjectAccessReview gets). */
export function celAuthorize(authorizer: Authorizer): (user: UserInfo, target: CelResourceCheck | CelPathCheck, verb: string) => CelDecision {
  return (user, target, verb) => {
    const decision =
      target.kind === 'path'
        ? authorizer.authorize({ kind: 'nonResource', user, verb, path: target.path })
        : authorizer.authorize({
            kind: 'resource',
            user,
            verb,
            apiGroup: target.group,
            resource: target.resource,
            subresource: target.subresource,
            namespace: target.namespace,
            name: target.name,
          });
    return { decision: decision.decision, reason: decision.reason };
  };
}
