import { z } from 'zod';
import { kindSchema, timeSchema } from './common.js';

/** coordination.svc.io/v1: Lease, the heartbeat and leader-election record. */

export const leaseSpecSchema = z.looseObject({
  holderIdentity: z.string().optional(),
  leaseDurationSeconds: z.int().min(1).optional(),
  /** MicroTime: RFC 3339 with microseconds. */
  acquireTime: timeSchema.optional(),
  renewTime: timeSchema.optional(),
  leaseTransitions: z.int().min(0).optional(),
  strategy: z.string().optional(),
  preferredHolder: z.string().optional(),
});

export const leaseSchema = kindSchema({
  spec: leaseSpecSchema.optional(),
});

export type LeaseSpec = z.infer<typeof leaseSpecSchema>;
export type Lease = z.infer<typeof leaseSchema>;
