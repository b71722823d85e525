/**
 * The `authorizer` of Kubernetes' CEL: `authorizer.group('apps').resource('deployments')
 * .namespace('ns').name('x').check('update').allowed()`, `authorizer.path('/healthz').check('get')`,
 * `authorizer.serviceAccount('ns', 'sa')` (the same checks for another user) and
 * `authorizer.requestResource` (the request's own resource). The values hold what is asked; the
 * answer comes from `CelAuthorize`, which the API server fills with its authorizer chain.
 */

export interface CelResourceCheck {
  readonly kind: 'resource';
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

export interface CelPathCheck {
  readonly kind: 'path';
  readonly path: string;
}

/** Whom a check is for: the requesting user, or a service account named in the expression. */
export type CelCheckSubject = { readonly kind: 'requester' } | { readonly kind: 'serviceAccount'; readonly namespace: string; readonly name: string };

export interface CelDecision {
  readonly decision: 'allow' | 'deny' | 'noOpinion';
  readonly reason: string;
  readonly error?: string;
}

export type CelAuthorize = (subject: CelCheckSubject, target: CelResourceCheck | CelPathCheck, verb: string) => CelDecision;

export class AuthorizerValue {
  /** `authorizer.requestResource`: the evaluator reads a custom type's own properties as its fields. */
  readonly requestResource: ResourceCheckValue | undefined;

  constructor(
    readonly authorize: CelAuthorize,
    readonly subject: CelCheckSubject,
    /** The request's own resource. */
    readonly request: CelResourceCheck | undefined,
  ) {
    this.requestResource = request && new ResourceCheckValue(this, request);
  }
}

export class GroupCheckValue {
  constructor(
    readonly authorizer: AuthorizerValue,
    readonly group: string,
  ) {}
}

export class ResourceCheckValue {
  constructor(
    readonly authorizer: AuthorizerValue,
    readonly target: CelResourceCheck,
  ) {}
}

export class PathCheckValue {
  constructor(
    readonly authorizer: AuthorizerValue,
    readonly path: string,
  ) {}
}

export class DecisionValue {
  constructor(readonly decision: CelDecision) {}
}
