// Virtual types: POST-only resources answered by a function and never stored (access reviews,
// token reviews). One handler per type, keyed by the type the router resolved.

import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP, type ResourceRegistry, type ResourceType } from '../../api/index.js';
import type { Handler } from '../request/index.js';
import { localSubjectAccessReview, selfSubjectAccessReview, selfSubjectRulesReview, subjectAccessReview, type AccessReviewOptions } from './access-reviews.js';
import { tokenReview, type TokenReviewOptions } from './token-review.js';
import { virtualHandler, type VirtualResource } from './virtual-resource.js';

export { virtualHandler, type VirtualRequest, type VirtualResource } from './virtual-resource.js';
export { DEFAULT_API_AUDIENCES } from './token-review.js';

export type VirtualResourceOptions = AccessReviewOptions & TokenReviewOptions;

/** The handlers of the virtual types the registry serves. */
export function virtualResources(registry: ResourceRegistry, options: VirtualResourceOptions): Map<ResourceType, Handler> {
  const handlers = new Map<ResourceType, Handler>();
  const add = <T>(group: string, resource: string, make: (type: ResourceType) => VirtualResource<T>) => {
    const type = registry.lookup(group, 'v1', resource);
    if (type?.virtual) handlers.set(type, virtualHandler(make(type)));
  };
  add(AUTHORIZATION_GROUP, 'subjectaccessreviews', (t) => subjectAccessReview(t, options));
  add(AUTHORIZATION_GROUP, 'localsubjectaccessreviews', (t) => localSubjectAccessReview(t, options));
  add(AUTHORIZATION_GROUP, 'selfsubjectaccessreviews', (t) => selfSubjectAccessReview(t, options));
  add(AUTHORIZATION_GROUP, 'selfsubjectrulesreviews', (t) => selfSubjectRulesReview(t, options));
  add(AUTHENTICATION_GROUP, 'tokenreviews', (t) => tokenReview(t, options));
  return handlers;
}
