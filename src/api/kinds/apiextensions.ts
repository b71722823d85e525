import { z } from 'zod';
import { conditionSchema, kindSchema } from './common.js';

/**
 * apiextensions.svc.io/v1: CustomResourceDefinition, which makes the server serve a new type.
 * The schema types the fields; the rules between them (names, versions, the structural schema)
 * are checked by the API server's custom-resource code, which reports each broken one as a cause.
 */

/** An OpenAPI v3 schema (JSONSchemaProps); its keywords are checked structurally, not here. */
export const jsonSchemaPropsSchema = z.looseObject({});

export const customResourceColumnSchema = z.looseObject({
  name: z.string(),
  type: z.string(),
  format: z.string().optional(),
  description: z.string().optional(),
  priority: z.int().optional(),
  jsonPath: z.string(),
});

export const customResourceSubresourcesSchema = z.looseObject({
  status: z.looseObject({}).optional(),
  scale: z
    .looseObject({
      specReplicasPath: z.string(),
      statusReplicasPath: z.string(),
      labelSelectorPath: z.string().optional(),
    })
    .optional(),
});

export const customResourceDefinitionVersionSchema = z.looseObject({
  name: z.string(),
  served: z.boolean(),
  storage: z.boolean(),
  deprecated: z.boolean().optional(),
  deprecationWarning: z.string().optional(),
  schema: z.looseObject({ openAPIV3Schema: jsonSchemaPropsSchema.optional() }).optional(),
  subresources: customResourceSubresourcesSchema.optional(),
  additionalPrinterColumns: z.array(customResourceColumnSchema).optional(),
});

export const customResourceDefinitionNamesSchema = z.looseObject({
  plural: z.string(),
  singular: z.string().optional(),
  kind: z.string(),
  listKind: z.string().optional(),
  shortNames: z.array(z.string()).optional(),
  categories: z.array(z.string()).optional(),
});

export const customResourceDefinitionSpecSchema = z.looseObject({
  group: z.string(),
  names: customResourceDefinitionNamesSchema,
  scope: z.enum(['Namespaced', 'Cluster']),
  versions: z.array(customResourceDefinitionVersionSchema),
  conversion: z.looseObject({ strategy: z.enum(['None', 'Webhook']) }).optional(),
  preserveUnknownFields: z.boolean().optional(),
});

export const customResourceDefinitionStatusSchema = z.looseObject({
  conditions: z.array(conditionSchema).optional(),
  acceptedNames: customResourceDefinitionNamesSchema.partial().optional(),
  storedVersions: z.array(z.string()).optional(),
});

export const customResourceDefinitionSchema = kindSchema({
  spec: customResourceDefinitionSpecSchema,
  status: customResourceDefinitionStatusSchema.optional(),
});

export type CustomResourceColumn = z.infer<typeof customResourceColumnSchema>;
export type CustomResourceDefinitionVersion = z.infer<typeof customResourceDefinitionVersionSchema>;
export type CustomResourceDefinitionNames = z.infer<typeof customResourceDefinitionNamesSchema>;
export type CustomResourceDefinitionSpec = z.infer<typeof customResourceDefinitionSpecSchema>;
export type CustomResourceDefinitionStatus = z.infer<typeof customResourceDefinitionStatusSchema>;
export type CustomResourceDefinition = z.infer<typeof customResourceDefinitionSchema>;
