import { z } from 'zod';
import { base64Schema, kindSchema, timeSchema, requiredPart } from './common.js';

/** certificates.svc.io/v1: CertificateSigningRequest. */

export const certificateSigningRequestSpecSchema = z.looseObject({
  /** A PEM CERTIFICATE REQUEST block, base64-encoded as bytes are in JSON. */
  request: base64Schema.min(1),
  signerName: z.string().min(1),
  expirationSeconds: z.int().min(600).optional(),
  usages: z.array(z.string()).optional(),
  username: z.string().optional(),
  uid: z.string().optional(),
  groups: z.array(z.string()).optional(),
  extra: z.record(z.string(), z.array(z.string())).optional(),
});

export const certificateSigningRequestConditionSchema = z.looseObject({
  type: z.enum(['Approved', 'Denied', 'Failed']),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastUpdateTime: timeSchema.optional(),
  lastTransitionTime: timeSchema.optional(),
});

export const certificateSigningRequestSchema = kindSchema({
  spec: requiredPart(certificateSigningRequestSpecSchema),
  status: z
    .looseObject({
      certificate: base64Schema.optional(),
      conditions: z.array(certificateSigningRequestConditionSchema).optional(),
    })
    .optional(),
});

export type CertificateSigningRequest = z.infer<typeof certificateSigningRequestSchema>;
