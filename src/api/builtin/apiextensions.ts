import { APIEXTENSIONS_GROUP } from '../groups.js';
import { customResourceDefinitionSchema } from '../kinds/apiextensions.js';
import { defineResourceType, type ResourceType } from '../resource-type.js';

/**
 * CustomResourceDefinition. Not among `builtinTypes`: it has no protobuf message, and the API
 * server adds it to whatever registry it serves (the custom resources it defines need the server's
 * machinery, not just a schema). Its status is written by the server alone.
 */
export const customResourceDefinitionType: ResourceType = defineResourceType({
  group: APIEXTENSIONS_GROUP,
  version: 'v1',
  namespaced: false,
  kind: 'CustomResourceDefinition',
  resource: 'customresourcedefinitions',
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  subresources: ['status'],
  schema: customResourceDefinitionSchema,
});
