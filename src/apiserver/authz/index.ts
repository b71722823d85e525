// Authorization: who may do what. Attributes of a request (or of a SubjectAccessReview), the
// authorizers `--authorization-mode` chains, RBAC over the server's own watch caches, and the
// default roles and bindings every cluster starts with.

export { decisionKey, forbiddenError, forbiddenMessage, type Attributes, type NonResourceAttributes, type ResourceAttributes } from './attributes.js';
export { ALLOW, NO_OPINION, type Authorizer, type Decision } from './decision.js';
export { AUTHORIZATION_MODES, chainAuthorizers, parseAuthorizationModes, PRIVILEGED_GROUP, type AuthorizationMode } from './modes.js';
export { RbacAuthorizer } from './rbac-authorizer.js';
export { RbacState, serviceAccountUser, type BoundSubject } from './rbac-state.js';
export { ruleAllows } from './rule-matching.js';
export { authorizeApiRequest, isApiPath, nonResourceAttributesOf, requireAllowed, resourceAttributesOf, userOf } from './request-attributes.js';
export { reconcileBootstrapPolicy, type ReconcileResult } from './bootstrap.js';
export {
  AUTOUPDATE_ANNOTATION,
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  CONTROLLER_MANAGER_USER,
  NODES_GROUP,
  nodeUser,
  SCHEDULER_USER,
} from './bootstrap-policy.js';
export { rulesReview } from './rules-review.js';
