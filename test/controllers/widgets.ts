import { z } from 'zod';
import { defineResourceType, kindSchema, type ResourceType } from '../../src/api/index.js';
import { resource } from '../../src/client/index.js';

/**
 * A custom namespaced type (example.com/v1 Widget) the controller tests serve beside the built-in
 * ones, so that loops which discover types are seen to find it. `verbs` narrows what it serves
 * (without deletecollection the namespace controller must delete its objects one by one).
 */
export function widgetType(verbs?: readonly string[]): ResourceType {
  return defineResourceType({
    group: 'example.com',
    version: 'v1',
    kind: 'Widget',
    resource: 'widgets',
    namespaced: true,
    schema: kindSchema({ spec: z.looseObject({}).optional() }),
    ...(verbs ? { verbs } : {}),
  });
}

export const widgets = resource({ group: 'example.com', version: 'v1', resource: 'widgets', namespaced: true });
