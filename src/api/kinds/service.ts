import { z } from 'zod';
import { conditionSchema, intOrStringSchema, kindSchema, looseSchema, objectReferenceSchema, protocolSchema, stringMapSchema } from './common.js';

/** Service and the Endpoints the endpoints controller keeps for it. */

const port = z.int().min(1).max(65535);

export const servicePortSchema = z.looseObject({
  name: z.string().optional(),
  protocol: protocolSchema.optional(),
  appProtocol: z.string().optional(),
  port,
  /** A number, or the name of a container port. */
  targetPort: intOrStringSchema.optional(),
  nodePort: z.int().min(0).max(65535).optional(),
});

const trafficPolicy = z.enum(['Cluster', 'Local']);

export const serviceSpecSchema = z.looseObject({
  type: z.enum(['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName']).optional(),
  selector: stringMapSchema.optional(),
  ports: z.array(servicePortSchema).optional(),
  clusterIP: z.string().optional(),
  clusterIPs: z.array(z.string()).optional(),
  externalIPs: z.array(z.string()).optional(),
  externalName: z.string().optional(),
  sessionAffinity: z.enum(['ClientIP', 'None']).optional(),
  sessionAffinityConfig: looseSchema.optional(),
  loadBalancerIP: z.string().optional(),
  loadBalancerSourceRanges: z.array(z.string()).optional(),
  loadBalancerClass: z.string().optional(),
  allocateLoadBalancerNodePorts: z.boolean().optional(),
  externalTrafficPolicy: trafficPolicy.optional(),
  internalTrafficPolicy: trafficPolicy.optional(),
  healthCheckNodePort: z.int().optional(),
  publishNotReadyAddresses: z.boolean().optional(),
  ipFamilies: z.array(z.enum(['IPv4', 'IPv6'])).optional(),
  ipFamilyPolicy: z.enum(['SingleStack', 'PreferDualStack', 'RequireDualStack']).optional(),
  trafficDistribution: z.string().optional(),
});

export const serviceStatusSchema = z.looseObject({
  loadBalancer: z
    .looseObject({
      ingress: z
        .array(z.looseObject({ ip: z.string().optional(), hostname: z.string().optional(), ports: z.array(looseSchema).optional() }))
        .optional(),
    })
    .optional(),
  conditions: z.array(conditionSchema).optional(),
});

export const serviceSchema = kindSchema({
  spec: serviceSpecSchema.optional(),
  status: serviceStatusSchema.optional(),
});

export const endpointAddressSchema = z.looseObject({
  ip: z.string().min(1),
  hostname: z.string().optional(),
  nodeName: z.string().optional(),
  targetRef: objectReferenceSchema.optional(),
});

export const endpointPortSchema = z.looseObject({
  name: z.string().optional(),
  port,
  protocol: protocolSchema.optional(),
  appProtocol: z.string().optional(),
});

export const endpointSubsetSchema = z.looseObject({
  addresses: z.array(endpointAddressSchema).optional(),
  notReadyAddresses: z.array(endpointAddressSchema).optional(),
  ports: z.array(endpointPortSchema).optional(),
});

export const endpointsSchema = kindSchema({
  subsets: z.array(endpointSubsetSchema).optional(),
});

export type ServicePort = z.infer<typeof servicePortSchema>;
export type ServiceSpec = z.infer<typeof serviceSpecSchema>;
export type Service = z.infer<typeof serviceSchema>;
export type Endpoints = z.infer<typeof endpointsSchema>;
