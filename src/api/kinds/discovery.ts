import { z } from 'zod';
import { kindSchema, looseSchema, objectReferenceSchema, protocolSchema, stringMapSchema } from './common.js';

/** discovery.svc.io/v1: EndpointSlice (fields at the top level, no spec). */

export const endpointSchema = z.looseObject({
  addresses: z.array(z.string()).min(1),
  conditions: z
    .looseObject({
      ready: z.boolean().optional(),
      serving: z.boolean().optional(),
      terminating: z.boolean().optional(),
    })
    .optional(),
  hostname: z.string().optional(),
  targetRef: objectReferenceSchema.optional(),
  nodeName: z.string().optional(),
  zone: z.string().optional(),
  hints: looseSchema.optional(),
  deprecatedTopology: stringMapSchema.optional(),
});

export const endpointSlicePortSchema = z.looseObject({
  name: z.string().optional(),
  protocol: protocolSchema.optional(),
  port: z.int().min(0).max(65535).optional(),
  appProtocol: z.string().optional(),
});

export const endpointSliceSchema = kindSchema({
  addressType: z.enum(['IPv4', 'IPv6', 'FQDN']),
  endpoints: z.array(endpointSchema),
  ports: z.array(endpointSlicePortSchema).optional(),
});

export type EndpointSlice = z.infer<typeof endpointSliceSchema>;
