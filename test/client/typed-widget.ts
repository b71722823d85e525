import { z } from 'zod';
import { defineCustomResource, type CustomObjectOf } from '../../src/client/index.js';

/** A Widget defined once from zod schemas: the tests of defineCustomResource and `svc crd` load it. */
export const TypedWidget = defineCustomResource({
  group: 'typed.example.com',
  names: { plural: 'widgets', kind: 'Widget', shortNames: ['wdg'], categories: ['all'] },
  scope: 'Namespaced',
  version: 'v1',
  spec: z.object({
    size: z.enum(['small', 'medium', 'large']).default('medium'),
    replicas: z.int32().min(0).max(10),
    color: z.string().regex(/^[a-z]+$/).optional(),
    port: z.union([z.int(), z.string()]).optional(),
    labels: z.record(z.string(), z.string()).optional(),
    parts: z.array(z.object({ name: z.string(), weight: z.number().gt(0).nullable() })).optional(),
    extra: z.looseObject({ note: z.string().optional() }).optional(),
    anything: z.unknown().optional(),
  }),
  status: z.object({
    replicas: z.int().optional(),
    selector: z.string().optional(),
    phase: z.literal(['Pending', 'Ready']).optional(),
  }),
  printerColumns: [
    { name: 'Size', type: 'string', jsonPath: '.spec.size' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
  ],
  subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
});

export type TypedWidgetObject = CustomObjectOf<typeof TypedWidget>;
