import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP } from '../groups.js';
import {
  localSubjectAccessReviewSchema,
  selfSubjectAccessReviewSchema,
  selfSubjectRulesReviewSchema,
  subjectAccessReviewSchema,
  tokenReviewSchema,
} from '../kinds/index.js';
import { defineResourceType, type ResourceType } from '../resource-type.js';

/** The virtual review types: POST-only questions the server answers and never stores. */

const review = { version: 'v1', verbs: ['create'], virtual: true, fieldSelectors: {} } as const;

export const reviewTypes: readonly ResourceType[] = [
  defineResourceType({ ...review, group: AUTHENTICATION_GROUP, kind: 'TokenReview', resource: 'tokenreviews', namespaced: false, schema: tokenReviewSchema }),
  defineResourceType({
    ...review,
    group: AUTHORIZATION_GROUP,
    kind: 'LocalSubjectAccessReview',
    resource: 'localsubjectaccessreviews',
    namespaced: true,
    schema: localSubjectAccessReviewSchema,
  }),
  defineResourceType({
    ...review,
    group: AUTHORIZATION_GROUP,
    kind: 'SelfSubjectAccessReview',
    resource: 'selfsubjectaccessreviews',
    namespaced: false,
    schema: selfSubjectAccessReviewSchema,
  }),
  defineResourceType({
    ...review,
    group: AUTHORIZATION_GROUP,
    kind: 'SelfSubjectRulesReview',
    resource: 'selfsubjectrulesreviews',
    namespaced: false,
    schema: selfSubjectRulesReviewSchema,
  }),
  defineResourceType({
    ...review,
    group: AUTHORIZATION_GROUP,
    kind: 'SubjectAccessReview',
    resource: 'subjectaccessreviews',
    namespaced: false,
    schema: subjectAccessReviewSchema,
  }),
];
