import { customResourceDefinitions, type Client } from '../../src/client/index.js';

/** The names a test's CustomResourceDefinition needs: its group, plural and kind. */
export interface CrdNames {
  readonly group: string;
  readonly plural: string;
  readonly kind: string;
}

/**
 * Creates a namespaced v1 CustomResourceDefinition whose schema keeps every field: for tests
 * about discovery, watches and lists of a new type, where the object's shape does not matter.
 */
export async function createOpenCrd(client: Client, { group, plural, kind }: CrdNames): Promise<void> {
  await client.create(customResourceDefinitions, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  } as never);
}
