import { z } from 'zod';
import { conditionSchema, kindSchema, looseSchema, resourceListSchema, timeSchema } from './common.js';

export const taintSchema = z.looseObject({
  key: z.string().min(1),
  value: z.string().optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
  timeAdded: timeSchema.optional(),
});

export const nodeAddressSchema = z.looseObject({
  type: z.string(),
  address: z.string(),
});

export const nodeSystemInfoSchema = z.looseObject({
  machineID: z.string().optional(),
  systemUUID: z.string().optional(),
  bootID: z.string().optional(),
  kernelVersion: z.string().optional(),
  osImage: z.string().optional(),
  containerRuntimeVersion: z.string().optional(),
  kubeletVersion: z.string().optional(),
  kubeProxyVersion: z.string().optional(),
  operatingSystem: z.string().optional(),
  architecture: z.string().optional(),
});

export const nodeSpecSchema = z.looseObject({
  podCIDR: z.string().optional(),
  podCIDRs: z.array(z.string()).optional(),
  providerID: z.string().optional(),
  unschedulable: z.boolean().optional(),
  taints: z.array(taintSchema).optional(),
});

export const nodeStatusSchema = z.looseObject({
  capacity: resourceListSchema.optional(),
  allocatable: resourceListSchema.optional(),
  phase: z.string().optional(),
  conditions: z.array(conditionSchema).optional(),
  addresses: z.array(nodeAddressSchema).optional(),
  daemonEndpoints: looseSchema.optional(),
  nodeInfo: nodeSystemInfoSchema.optional(),
  images: z.array(looseSchema).optional(),
  volumesInUse: z.array(z.string()).optional(),
  volumesAttached: z.array(looseSchema).optional(),
});

export const nodeSchema = kindSchema({
  spec: nodeSpecSchema.optional(),
  status: nodeStatusSchema.optional(),
});

export type Taint = z.infer<typeof taintSchema>;
export type NodeSpec = z.infer<typeof nodeSpecSchema>;
export type NodeStatus = z.infer<typeof nodeStatusSchema>;
export type Node = z.infer<typeof nodeSchema>;
