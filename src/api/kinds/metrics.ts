import { z } from 'zod';
import { kindSchema, resourceListSchema, timeSchema } from './common.js';

/**
 * metrics.svc.io/v1beta1 (upstream metrics.k8s.io/v1beta1): the resource metrics API. Read-only
 * objects the API server computes from the node agents' samples (docs/autoscaling.md); never stored.
 */

export const containerMetricsSchema = z.looseObject({
  name: z.string(),
  usage: resourceListSchema,
});

export const nodeMetricsSchema = kindSchema({
  /** When the sample was taken (the end of the window). */
  timestamp: timeSchema,
  /** The window the usage is averaged over, as a Go duration (`15.012s`). */
  window: z.string(),
  usage: resourceListSchema,
});

export const podMetricsSchema = kindSchema({
  timestamp: timeSchema,
  window: z.string(),
  containers: z.array(containerMetricsSchema),
});

export type NodeMetrics = z.infer<typeof nodeMetricsSchema>;
export type PodMetrics = z.infer<typeof podMetricsSchema>;
export type ContainerMetrics = z.infer<typeof containerMetricsSchema>;
