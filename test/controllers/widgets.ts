import { z } from 'zod';
import { defineResourceType, type ResourceType } from '../../src/api/index.js';
import { defineCustomResource } from '../../src/client/index.js';

/**
 * A custom namespaced type (example.com/v1 Widget) the controller tests serve beside the built-in
 * ones, so that loops which discover types are seen to find it. Defined once with
 * defineCustomResource: `Widget.definition` is its CRD, `widgets` its typed address.
 */
export const Widget = defineCustomResource({
  group: 'example.com',
  names: { plural: 'widgets', kind: 'Widget' },
  scope: 'Namespaced',
  version: 'v1',
  spec: z.looseObject({ replicas: z.int().min(0).optional() }).optional(),
});

/**
 * The Widget served from the registry, as a built-in type is (no CRD to create first). `verbs`
 * narrows what it serves (without deletecollection the namespace controller must delete its
 * objects one by one).
 */
export function widgetType(verbs?: readonly string[]): ResourceType {
  const { group, version, resource, kind } = Widget.resource;
  return defineResourceType({ group, version, kind: kind!, resource, namespaced: true, schema: Widget.schema, ...(verbs ? { verbs } : {}) });
}

export const widgets = Widget.resource;
