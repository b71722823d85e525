import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { eventually, waitEstablished, widgetCrd } from './fixtures.js';

const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer('memory');
});
afterAll(async () => server.close());

type Crd = ReturnType<typeof widgetCrd>;
const schemaOf = (crd: Crd) => crd.spec.versions[0]!.schema!.openAPIV3Schema as Record<string, any>;
const deep = (levels: number): object => (levels === 0 ? { type: 'string' } : { type: 'object', properties: { a: deep(levels - 1) } });

const cases: [string, (crd: Crd) => void, string][] = [
  ['name not plural.group', (c) => (c.metadata.name = 'other.example.com'), 'metadata.name'],
  ['group without a dot', (c) => ((c.spec.group = 'example'), (c.metadata.name = 'widgets.example')), 'spec.group'],
  ['a reserved group', (c) => ((c.spec.group = 'apps.svc.io'), (c.metadata.name = 'widgets.apps.svc.io')), 'spec.group'],
  ['uppercase plural', (c) => ((c.spec.names.plural = 'Widgets'), (c.metadata.name = 'widgets.example.com')), 'spec.names.plural'],
  ['lowercase kind', (c) => (c.spec.names.kind = 'widget'), 'spec.names.kind'],
  ['no storage version', (c) => (c.spec.versions[0]!.storage = false), 'spec.versions'],
  ['two storage versions', (c) => (c.spec.versions[1]!.storage = true), 'spec.versions'],
  ['a bad type', (c) => (schemaOf(c)['properties'].spec.properties.size.type = 'text'), 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type'],
  ['a node without a type', (c) => delete schemaOf(c)['properties'].spec.properties.size.type, 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type'],
  ['an array without items', (c) => delete schemaOf(c)['properties'].spec.properties.tags.items, 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].items'],
  ['$ref', (c) => (schemaOf(c)['properties'].spec.properties.size.$ref = '#/x'), 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].$ref'],
  ['properties with additionalProperties', (c) => (schemaOf(c)['properties'].spec.additionalProperties = { type: 'string' }), 'spec.versions[0].schema.openAPIV3Schema.properties[spec].additionalProperties'],
  ['a bad pattern', (c) => (schemaOf(c)['properties'].spec.properties.color.pattern = '(['), 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[color].pattern'],
  ['an invalid default', (c) => (schemaOf(c)['properties'].spec.properties.replicas.default = 99), 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].default'],
  ['a root that is not an object', (c) => (schemaOf(c)['type'] = 'string'), 'spec.versions[0].schema.openAPIV3Schema.type'],
  ['too deep', (c) => (schemaOf(c)['properties'].spec = deep(70)), 'spec.versions[0].schema.openAPIV3Schema'],
  ['metadata constraints', (c) => (schemaOf(c)['properties'].metadata = { type: 'object', properties: { labels: { type: 'object' } } }), 'spec.versions[0].schema.openAPIV3Schema.properties[metadata].properties[labels]'],
  ['a printer column of an unknown type', (c) => (c.spec.versions[0]!.additionalPrinterColumns![0]!.type = 'float'), 'spec.versions[0].additionalPrinterColumns[0].type'],
  ['a printer column with a bad path', (c) => (c.spec.versions[0]!.additionalPrinterColumns![0]!.jsonPath = 'spec..x'), 'spec.versions[0].additionalPrinterColumns[0].jsonPath'],
  ['a scale path outside spec', (c) => (c.spec.versions[0]!.subresources!.scale.specReplicasPath = '.status.replicas'), 'spec.versions[0].subresources.scale.specReplicasPath'],
  ['a missing schema', (c) => delete (c.spec.versions[1] as any).schema, 'spec.versions[1].schema.openAPIV3Schema'],
];

describe('an invalid CustomResourceDefinition', () => {
  it.each(cases)('%s: 422 naming the field, nothing stored', async (_what, spoil, field) => {
    const crd = widgetCrd();
    spoil(crd);
    const res = await server.call('POST', CRDS, crd);
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.details.causes.some((c: any) => c.field.startsWith(field))).toBe(true);
    expect((await server.call('GET', CRDS)).body.items).toEqual([]);
  });

  it('an oversize schema is refused', async () => {
    const crd = widgetCrd();
    schemaOf(crd)['properties'].spec.properties.size.description = 'x'.repeat(1024 * 1024 + 10);
    const res = await server.call('POST', CRDS, crd);
    expect(res.status).toBe(422);
  });
});

describe('updates of a CustomResourceDefinition', () => {
  it('may not change its scope; its status is the server own', async () => {
    await server.call('POST', CRDS, widgetCrd());
    const crd = await waitEstablished(server, 'widgets.example.com');
    const scoped = await server.call('PUT', `${CRDS}/widgets.example.com`, { ...crd, spec: { ...crd.spec, scope: 'Cluster' } });
    expect(scoped.status).toBe(422);
    expect(scoped.body.details.causes).toContainEqual(expect.objectContaining({ field: 'spec.scope' }));
    const forged = await server.call('PATCH', `${CRDS}/widgets.example.com`, { status: { conditions: [] } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    expect(forged.status).toBe(200);
    expect(forged.body.status.conditions.length).toBeGreaterThan(0);
  });

  it('a new printer column is served after an update', async () => {
    const crd = (await server.call('GET', `${CRDS}/widgets.example.com`)).body;
    crd.spec.versions[0].additionalPrinterColumns.push({ name: 'Size', type: 'string', jsonPath: '.spec.size' });
    expect((await server.call('PUT', `${CRDS}/widgets.example.com`, crd)).status).toBe(200);
    await server.call('POST', '/apis/example.com/v1/namespaces/default/widgets', { metadata: { name: 'w' }, spec: { size: 'large' } });
    await eventually(async () => {
      const table = await server.call('GET', '/apis/example.com/v1/namespaces/default/widgets/w', undefined, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
      return table.body.columnDefinitions?.some((c: any) => c.name === 'Size') === true;
    }, 'the Size column is served');
  });
});

describe('name conflicts', () => {
  it('a second CRD of a kind already taken in the group is not accepted nor served', async () => {
    const other = widgetCrd('Namespaced', 'gizmos', 'Widget');
    other.spec.names.singular = 'gizmo';
    expect((await server.call('POST', CRDS, other)).status).toBe(201);
    await eventually(async () => {
      const crd = (await server.call('GET', `${CRDS}/gizmos.example.com`)).body;
      const accepted = (crd.status?.conditions ?? []).find((c: any) => c.type === 'NamesAccepted');
      return accepted?.status === 'False' && accepted.reason === 'KindConflict';
    }, 'NamesAccepted=False KindConflict');
    const crd = (await server.call('GET', `${CRDS}/gizmos.example.com`)).body;
    expect(crd.status.conditions.find((c: any) => c.type === 'Established').status).toBe('False');
    expect((await server.call('GET', '/apis/example.com/v1/namespaces/default/gizmos')).status).toBe(404);

    // once the holder of the name goes, the waiting CRD gets it
    await server.call('DELETE', `${CRDS}/widgets.example.com`);
    await waitEstablished(server, 'gizmos.example.com');
    expect((await server.call('GET', '/apis/example.com/v1/namespaces/default/gizmos')).status).toBe(200);
  });
});
