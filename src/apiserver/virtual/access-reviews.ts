import {
  badRequest,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  invalid,
  type FieldCause,
  type LocalSubjectAccessReview,
  type ResourceType,
  type SelfSubjectAccessReview,
  type SelfSubjectRulesReview,
  type SubjectAccessReview,
  type SubjectAccessReviewStatus,
} from '../../api/index.js';
import type { UserInfo } from '../authn/user.js';
import { rulesReview, type Attributes, type Authorizer, type RbacState } from '../authz/index.js';
import type { ApiObject } from '../api-object.js';
import type { VirtualResource } from './virtual-resource.js';

type Spec = SubjectAccessReview['spec'] | SelfSubjectAccessReview['spec'];

const ONE_OF = 'exactly one of nonResourceAttributes or resourceAttributes must be specified';

/** The attributes a review asks about, for `user`: the same record a real request makes. */
function attributesOf(spec: Spec, user: UserInfo): Attributes {
  const r = spec.resourceAttributes;
  if (r) {
    return {
      kind: 'resource',
      user,
      verb: r.verb ?? '',
      apiGroup: r.group ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      namespace: r.namespace ?? '',
      name: r.name ?? '',
    };
  }
  const n = spec.nonResourceAttributes!;
  return { kind: 'nonResource', user, verb: n.verb ?? '', path: n.path ?? '' };
}

function checkAttributes(kind: string, spec: Spec, extra: FieldCause[] = []): void {
  const causes = [...extra];
  if (!spec.resourceAttributes === !spec.nonResourceAttributes) causes.push(fieldInvalid('spec.resourceAttributes', null, ONE_OF));
  if (causes.length) throw invalid({ group: 'authorization.k8s.io', kind }, '', causes);
}

function statusOf(authorizer: Authorizer, attributes: Attributes): SubjectAccessReviewStatus {
  const d = authorizer.authorize(attributes);
  return {
    allowed: d.decision === 'allow',
    ...(d.decision === 'deny' ? { denied: true } : {}),
    ...(d.reason ? { reason: d.reason } : {}),
  };
}

const answered = (review: ApiObject, status: object): ApiObject => ({ ...review, status });

/** The authorizer and RBAC state the reviews consult: the ones that guard real requests. */
export interface AccessReviewOptions {
  readonly authorizer: Authorizer;
  /** Absent when RBAC is not among the modes (SelfSubjectRulesReview then reports wildcards). */
  readonly rbac: RbacState | undefined;
}

/** SubjectAccessReview: may this user (with these groups) do this? */
export function subjectAccessReview(type: ResourceType, options: AccessReviewOptions): VirtualResource<SubjectAccessReview> {
  return {
    type,
    answer({ body }) {
      const spec = body.spec;
      const noSubject = !spec.user && !(spec.groups?.length) ? [fieldInvalid('spec.user', '', 'at least one of user or group must be specified')] : [];
      checkAttributes(type.kind, spec, noSubject);
      const user: UserInfo = { name: spec.user ?? '', uid: spec.uid ?? '', groups: spec.groups ?? [] };
      return answered(body as ApiObject, statusOf(options.authorizer, attributesOf(spec, user)));
    },
  };
}

/** LocalSubjectAccessReview: the same question, limited to the path's namespace. */
export function localSubjectAccessReview(type: ResourceType, options: AccessReviewOptions): VirtualResource<LocalSubjectAccessReview> {
  const sar = subjectAccessReview(type, options);
  return {
    type,
    answer(request) {
      const { spec } = request.body;
      if (spec.nonResourceAttributes) throw invalid({ group: 'authorization.k8s.io', kind: type.kind }, '', [fieldForbidden('spec.nonResourceAttributes', 'disallowed on this kind of request')]);
      if (!spec.resourceAttributes) throw invalid({ group: 'authorization.k8s.io', kind: type.kind }, '', [fieldRequired('spec.resourceAttributes')]);
      if ((spec.resourceAttributes.namespace ?? '') !== request.namespace) {
        throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${request.namespace ?? ''}`);
      }
      return sar.answer(request);
    },
  };
}

/** SelfSubjectAccessReview: may I do this? (what `kubectl auth can-i` asks). */
export function selfSubjectAccessReview(type: ResourceType, options: AccessReviewOptions): VirtualResource<SelfSubjectAccessReview> {
  return {
    type,
    answer({ body, user }) {
      checkAttributes(type.kind, body.spec);
      return answered(body as ApiObject, statusOf(options.authorizer, attributesOf(body.spec, user)));
    },
  };
}

/** SelfSubjectRulesReview: what may I do in this namespace? (`kubectl auth can-i --list`). */
export function selfSubjectRulesReview(type: ResourceType, options: AccessReviewOptions): VirtualResource<SelfSubjectRulesReview> {
  return {
    type,
    answer({ body, user }) {
      const namespace = body.spec.namespace ?? '';
      if (namespace === '') throw badRequest('no namespace on request');
      return answered(body as ApiObject, rulesReview(options.rbac, user, namespace));
    },
  };
}
