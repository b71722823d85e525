import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { waitEstablished, widgetCrd } from './fixtures.js';

const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const GADGETS = '/apis/example.com/v1/gadgets';
const widget = (name: string, spec: object = { size: 'small' }) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer('memory', { listen: true });
  expect((await server.call('POST', CRDS, widgetCrd())).status).toBe(201);
  expect((await server.call('POST', CRDS, widgetCrd('Cluster', 'gadgets', 'Gadget'))).status).toBe(201);
  await waitEstablished(server, 'widgets.example.com');
  await waitEstablished(server, 'gadgets.example.com');
});
afterAll(async () => server.close());

describe('validation by the OpenAPI schema', () => {
  const rules: [string, object, string, string][] = [
    ['required', { replicas: 1 }, 'spec.size', 'FieldValueRequired'],
    ['enum', { size: 'huge' }, 'spec.size', 'FieldValueNotSupported'],
    ['type', { size: 'small', replicas: 'two' }, 'spec.replicas', 'FieldValueTypeInvalid'],
    ['maximum', { size: 'small', replicas: 11 }, 'spec.replicas', 'FieldValueInvalid'],
    ['minimum', { size: 'small', replicas: -1 }, 'spec.replicas', 'FieldValueInvalid'],
    ['integer', { size: 'small', replicas: 1.5 }, 'spec.replicas', 'FieldValueTypeInvalid'],
    ['pattern', { size: 'small', color: 'Red1' }, 'spec.color', 'FieldValueInvalid'],
    ['maxLength', { size: 'small', color: 'abcdefghijk' }, 'spec.color', 'FieldValueTooLong'],
    ['maxItems', { size: 'small', tags: ['a', 'b', 'c', 'd'] }, 'spec.tags', 'FieldValueTooMany'],
    ['uniqueItems', { size: 'small', tags: ['a', 'a'] }, 'spec.tags', 'FieldValueInvalid'],
    ['items type', { size: 'small', tags: [1] }, 'spec.tags[0]', 'FieldValueTypeInvalid'],
    ['date-time format', { size: 'small', when: 'yesterday' }, 'spec.when', 'FieldValueInvalid'],
    ['int-or-string', { size: 'small', port: true }, 'spec.port', 'FieldValueTypeInvalid'],
    ['additionalProperties', { size: 'small', labels: { a: 1 } }, 'spec.labels[a]', 'FieldValueTypeInvalid'],
  ];
  it.each(rules)('%s: 422 Invalid naming the field, and nothing stored', async (_rule, spec, field, reason) => {
    const res = await server.call('POST', WIDGETS, widget('bad', spec));
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.details.causes).toContainEqual(expect.objectContaining({ field, reason }));
    expect((await server.call('GET', `${WIDGETS}/bad`)).status).toBe(404);
  });

  it('accepts int-or-string as either, and keeps fields under preserve-unknown-fields', async () => {
    const res = await server.call('POST', `${WIDGETS}?fieldValidation=Strict`, widget('ok', { size: 'large', port: 'http', free: { any: { thing: 1 } }, labels: { a: 'b' }, when: '2024-01-02T03:04:05Z' }));
    expect(res.status).toBe(201);
    expect(res.body.spec.free).toEqual({ any: { thing: 1 } });
    expect(res.body.spec.port).toBe('http');
  });
});

describe('__proto__ and constructor keys in a custom resource (issue #29)', () => {
  const body = (name: string) =>
    `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":{"size":"small","free":{"__proto__":{"x":1},"constructor":2},"labels":{"__proto__":"p","constructor":"c"},"__proto__":{"size":"large"},"constructor":{}}}`;
  const post = (query: string, name: string) => server.call('POST', `${WIDGETS}${query}`, body(name));

  it('keeps them as data in a map and under preserve-unknown-fields, and drops them as unknown fields of the spec', async () => {
    const res = await post('', 'proto');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const got = (await server.call('GET', `${WIDGETS}/proto`)).body.spec;
    expect(got.size).toBe('small');
    expect(Object.getOwnPropertyDescriptor(got.free, '__proto__')?.value).toEqual({ x: 1 });
    expect(got.free.constructor).toBe(2);
    expect(Object.getOwnPropertyDescriptor(got.labels, '__proto__')?.value).toBe('p');
    expect(got.labels.constructor).toBe('c');
    expect(Object.hasOwn(got, '__proto__')).toBe(false);
    expect(Object.hasOwn(got, 'constructor')).toBe(false);
  });

  it('Strict refuses the unknown ones with a 400 and stores nothing', async () => {
    const res = await post('?fieldValidation=Strict', 'proto-strict');
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('spec.__proto__');
    expect((await server.call('GET', `${WIDGETS}/proto-strict`)).status).toBe(404);
  });
});

describe('unknown fields at the three validation levels', () => {
  const body = (name: string) => ({ ...widget(name), extra: 1, spec: { size: 'small', unknownField: 'x' } });
  it('Ignore prunes them silently', async () => {
    const res = await server.call('POST', `${WIDGETS}?fieldValidation=Ignore`, body('ignore'));
    expect(res.status).toBe(201);
    expect(res.body.spec.unknownField).toBeUndefined();
    expect(res.body.extra).toBeUndefined();
    expect(res.headers['warning']).toBeUndefined();
  });
  it('Warn prunes them with a warning each', async () => {
    const res = await server.call('POST', WIDGETS, body('warn'));
    expect(res.status).toBe(201);
    expect(res.body.spec.unknownField).toBeUndefined();
    expect(String(res.headers['warning'])).toContain('unknown field \\"spec.unknownField\\"');
  });
  it('Strict refuses them with a 400', async () => {
    const res = await server.call('POST', `${WIDGETS}?fieldValidation=Strict`, body('strict'));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('unknown field "spec.unknownField"');
    expect((await server.call('GET', `${WIDGETS}/strict`)).status).toBe(404);
  });
});

describe('the status subresource seen from the main endpoint', () => {
  it('drops status on create and keeps the stored one on update; generation moves only with spec', async () => {
    const created = await server.call('POST', WIDGETS, { ...widget('st'), status: { replicas: 5 } });
    expect(created.body.status).toBeUndefined();
    const updated = await server.call('PATCH', `${WIDGETS}/st`, { status: { replicas: 7 } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    expect(updated.status).toBe(200);
    expect(updated.body.status).toBeUndefined();
    expect(updated.body.metadata.generation).toBe(1);
    const spec = await server.call('PATCH', `${WIDGETS}/st`, [{ op: 'replace', path: '/spec/replicas', value: 4 }], { headers: { 'content-type': 'application/json-patch+json' } });
    expect(spec.status).toBe(200);
    expect(spec.body.spec.replicas).toBe(4);
    expect(spec.body.metadata.generation).toBe(2);
  });
});

describe('patches and representations', () => {
  it('merge and JSON patch validate against the schema; strategic merge is 415', async () => {
    await server.call('POST', WIDGETS, widget('p'));
    const merge = await server.call('PATCH', `${WIDGETS}/p`, { spec: { color: 'red' } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    expect(merge.body.spec.color).toBe('red');
    const bad = await server.call('PATCH', `${WIDGETS}/p`, { spec: { replicas: 99 } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    expect(bad.status).toBe(422);
    const smp = await server.call('PATCH', `${WIDGETS}/p`, { spec: { color: 'green' } }, { headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    expect(smp.status).toBe(415);
    expect((await server.call('GET', `${WIDGETS}/p`)).body.spec.color).toBe('red');
  });

  it('server-side apply creates and updates, with managed fields', async () => {
    const apply = (spec: object) =>
      server.call('PATCH', `${WIDGETS}/applied?fieldManager=me`, JSON.stringify(widget('applied', spec)), { headers: { 'content-type': 'application/apply-patch+yaml' } });
    const first = await apply({ size: 'small' });
    expect(first.status).toBe(201);
    expect(first.body.spec.replicas).toBe(1);
    const second = await apply({ size: 'large', replicas: 2 });
    expect(second.status).toBe(200);
    expect(second.body.spec).toMatchObject({ size: 'large', replicas: 2 });
    expect(second.body.metadata.managedFields[0].manager).toBe('me');
  });

  it('protobuf alone is 406; with a JSON fallback the answer is JSON', async () => {
    expect((await server.call('GET', WIDGETS, undefined, { headers: { accept: 'application/vnd.kubernetes.protobuf' } })).status).toBe(406);
    const fallback = await server.call('GET', WIDGETS, undefined, { headers: { accept: 'application/vnd.kubernetes.protobuf, application/json' } });
    expect(fallback.status).toBe(200);
    expect(fallback.headers['content-type']).toContain('application/json');
  });

  it('Table has Name and the printer columns, with their types and priorities', async () => {
    await server.call('POST', WIDGETS, widget('t', { size: 'small', replicas: 2, color: 'pink' }));
    const table = await server.call('GET', `${WIDGETS}/t`, undefined, { headers: { accept: TABLE } });
    expect(table.body.kind).toBe('Table');
    expect(table.body.columnDefinitions.map((c: any) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Replicas', 'integer', 0],
      ['Color', 'string', 1],
    ]);
    expect(table.body.rows[0].cells).toEqual(['t', 2, 'pink']);
    const list = await server.call('GET', WIDGETS, undefined, { headers: { accept: TABLE } });
    expect(list.body.rows.length).toBeGreaterThan(1);
  });

  it('a version without printer columns has the default Name and Created At', async () => {
    const table = await server.call('GET', '/apis/example.com/v1beta1/namespaces/default/widgets', undefined, { headers: { accept: TABLE } });
    expect(table.body.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Created At']);
  });

  it('PartialObjectMetadata of one and of the list', async () => {
    const one = await server.call('GET', `${WIDGETS}/t`, undefined, { headers: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' } });
    expect(one.body.kind).toBe('PartialObjectMetadata');
    expect(one.body.spec).toBeUndefined();
    const list = await server.call('GET', WIDGETS, undefined, { headers: { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' } });
    expect(list.body.kind).toBe('PartialObjectMetadataList');
  });
});

describe('a cluster-scoped custom resource', () => {
  it('is served without a namespace, and refused with one', async () => {
    const created = await server.call('POST', GADGETS, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 'small' } });
    expect(created.status).toBe(201);
    expect(created.body.metadata.namespace).toBeUndefined();
    expect((await server.call('GET', `${GADGETS}/g1`)).status).toBe(200);
    expect((await server.call('GET', '/apis/example.com/v1/namespaces/default/gadgets/g1')).status).toBe(404);
    const resources = await server.call('GET', '/apis/example.com/v1');
    expect(resources.body.resources.find((r: any) => r.name === 'gadgets').namespaced).toBe(false);
  });
});

describe('watch', () => {
  it('streams the events of a custom resource', async () => {
    const list = await server.call('GET', GADGETS);
    const controller = new AbortController();
    const res = await fetch(`${server.url}${GADGETS}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`, {
      headers: { authorization: 'Bearer test-admin-token' },
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await server.call('POST', GADGETS, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'watched' }, spec: { size: 'large' } });
    let text = '';
    while (!text.includes('\n')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const event = JSON.parse(text.split('\n')[0]!);
    expect(event.type).toBe('ADDED');
    expect(event.object).toMatchObject({ kind: 'Gadget', apiVersion: 'example.com/v1', metadata: { name: 'watched' }, spec: { replicas: 1 } });
  });
});
