import { z } from 'zod';
import { kindSchema } from './common.js';

/**
 * authentication.svc.io/v1 (alias authentication.k8s.io/v1): TokenReview, a virtual type. A POST
 * asks who a bearer token belongs to; the answer comes back in `status`; nothing is stored.
 */

export const userInfoSchema = z.looseObject({
  username: z.string().optional(),
  uid: z.string().optional(),
  groups: z.array(z.string()).optional(),
  extra: z.record(z.string(), z.array(z.string())).optional(),
});

export const tokenReviewSchema = kindSchema({
  spec: z.looseObject({
    token: z.string().optional(),
    audiences: z.array(z.string()).optional(),
  }),
  status: z
    .looseObject({
      authenticated: z.boolean().optional(),
      user: userInfoSchema.optional(),
      audiences: z.array(z.string()).optional(),
      error: z.string().optional(),
    })
    .optional(),
});

export type ReviewUserInfo = z.infer<typeof userInfoSchema>;
export type TokenReview = z.infer<typeof tokenReviewSchema>;
