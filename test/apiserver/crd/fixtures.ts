import type { TestServer } from '../harness.js';
import { waitUntil } from '../../support/wait.js';

/** A CRD of Widgets in example.com, in the shape upstream manifests have (apiextensions.k8s.io/v1). */
export function widgetCrd(scope: 'Namespaced' | 'Cluster' = 'Namespaced', plural = 'widgets', kind = 'Widget') {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, shortNames: [`${plural.slice(0, 2)}x`] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
          additionalPrinterColumns: [
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['size'],
                  properties: {
                    size: { type: 'string', enum: ['small', 'large'] },
                    replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 10, default: 1 },
                    color: { type: 'string', pattern: '^[a-z]+$', maxLength: 10, default: 'blue' },
                    tags: { type: 'array', items: { type: 'string' }, maxItems: 3, uniqueItems: true },
                    when: { type: 'string', format: 'date-time' },
                    port: { 'x-kubernetes-int-or-string': true },
                    labels: { type: 'object', additionalProperties: { type: 'string' } },
                    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
                status: { type: 'object', properties: { replicas: { type: 'integer' } } },
              },
            },
          },
        },
        {
          name: 'v1beta1',
          served: true,
          storage: false,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

/** Waits until the CRD's status says Established (the server sets it in the background). */
export async function waitEstablished(server: TestServer, name: string): Promise<any> {
  let crd: any;
  await waitUntil(async () => {
    const res = await server.call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    crd = res.body;
    return (res.body?.status?.conditions ?? []).some((c: any) => c.type === 'Established' && c.status === 'True');
  }, `${name} to become Established`, 25);
  return crd;
}

/** Polls `check` until it returns true (background work: status writes, cleanup). */
export async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  await waitUntil(check, what, 25);
}
