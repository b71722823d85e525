import { z } from 'zod';
import { conditionSchema, kindSchema, looseSchema, nonNegativeInt, timeSchema, requiredPart } from './common.js';

/** autoscaling/v2: HorizontalPodAutoscaler. */

export const metricSpecSchema = z.looseObject({
  // Checked by the write strategy (builtin/autoscaling-validation.ts), with upstream's "Unsupported value" cause.
  type: z.string(),
  object: looseSchema.optional(),
  pods: looseSchema.optional(),
  resource: looseSchema.optional(),
  containerResource: looseSchema.optional(),
  external: looseSchema.optional(),
});

export const horizontalPodAutoscalerSpecSchema = z.looseObject({
  scaleTargetRef: z.looseObject({
    apiVersion: z.string().optional(),
    kind: z.string().min(1),
    name: z.string().min(1),
  }),
  minReplicas: z.int().min(1).optional(),
  maxReplicas: z.int().min(1),
  metrics: z.array(metricSpecSchema).optional(),
  behavior: looseSchema.optional(),
});

export const horizontalPodAutoscalerSchema = kindSchema({
  spec: requiredPart(horizontalPodAutoscalerSpecSchema),
  status: z
    .looseObject({
      observedGeneration: z.int().optional(),
      lastScaleTime: timeSchema.optional(),
      currentReplicas: nonNegativeInt.optional(),
      desiredReplicas: nonNegativeInt.optional(),
      currentMetrics: z.array(looseSchema).optional(),
      conditions: z.array(conditionSchema).optional(),
    })
    .optional(),
});

export type HorizontalPodAutoscaler = z.infer<typeof horizontalPodAutoscalerSchema>;

/** autoscaling/v1: HorizontalPodAutoscaler (CPU only; served by conversion from the stored v2). */
export const horizontalPodAutoscalerV1Schema = kindSchema({
  spec: requiredPart(
    z.looseObject({
      scaleTargetRef: horizontalPodAutoscalerSpecSchema.shape.scaleTargetRef,
      minReplicas: z.int().min(1).optional(),
      maxReplicas: z.int().min(1),
      targetCPUUtilizationPercentage: z.int().optional(),
    }),
  ),
  status: z
    .looseObject({
      observedGeneration: z.int().optional(),
      lastScaleTime: timeSchema.optional(),
      currentReplicas: nonNegativeInt.optional(),
      desiredReplicas: nonNegativeInt.optional(),
      currentCPUUtilizationPercentage: z.int().optional(),
    })
    .optional(),
});

export type HorizontalPodAutoscalerV1 = z.infer<typeof horizontalPodAutoscalerV1Schema>;
