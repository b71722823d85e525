import { z } from 'zod';
import { conditionSchema, intOrStringSchema, kindSchema, labelSelectorSchema, nonNegativeInt, timeSchema } from './common.js';

/** policy/v1: PodDisruptionBudget. */

export const podDisruptionBudgetSpecSchema = z
  .looseObject({
    minAvailable: intOrStringSchema.optional(),
    maxUnavailable: intOrStringSchema.optional(),
    selector: labelSelectorSchema.optional(),
    unhealthyPodEvictionPolicy: z.enum(['IfHealthyBudget', 'AlwaysAllow']).optional(),
  })
  .superRefine((spec, ctx) => {
    if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['minAvailable'], input: spec.minAvailable, message: 'minAvailable and maxUnavailable cannot be both set' });
    }
  });

export const podDisruptionBudgetSchema = kindSchema({
  spec: podDisruptionBudgetSpecSchema.optional(),
  status: z
    .looseObject({
      observedGeneration: z.int().optional(),
      disruptedPods: z.record(z.string(), timeSchema).optional(),
      disruptionsAllowed: nonNegativeInt.optional(),
      currentHealthy: nonNegativeInt.optional(),
      desiredHealthy: nonNegativeInt.optional(),
      expectedPods: nonNegativeInt.optional(),
      conditions: z.array(conditionSchema).optional(),
    })
    .optional(),
});

export type PodDisruptionBudget = z.infer<typeof podDisruptionBudgetSchema>;
