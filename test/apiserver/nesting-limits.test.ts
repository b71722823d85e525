import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCbor, MAX_NESTING_DEPTH } from '../../src/encoding/index.js';
import { startTestServer, TOKEN, type CallResult, type TestServer } from './harness.js';
import { waitEstablished, widgetCrd } from './crd/fixtures.js';
import { nested, nestedJson } from '../support/nesting.js';

const CM = '/api/v1/namespaces/default/configmaps';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const APPLY = 'application/apply-patch+yaml';
const auth = { authorization: `Bearer ${TOKEN}` };

function expectTooDeep(res: CallResult) {
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'BadRequest', code: 400 });
  expect(res.body.message).toContain('nested too deeply');
}

/** A Widget whose spec.free (preserve-unknown-fields) makes the whole object `depth` deep. */
const widget = (name: string, depth: number, size = 'small') => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name },
  spec: { size, free: nested(depth - 2) }, // the object, then spec
});

describe('nesting limits, on the sqlite store', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite', { featureGates: { CBORServingAndStorage: true } });
    expect((await s.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd())).status).toBe(201);
    await waitEstablished(s, 'widgets.example.com');
    expect((await s.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: { a: '1' } })).status).toBe(201);
  });
  afterAll(async () => {
    await s.close();
  });

  /** The target ConfigMap's resourceVersion: a refused write must leave it as it was. */
  const targetVersion = async () => (await s.call('GET', `${CM}/target`)).body.metadata.resourceVersion as string;

  it('serves an object exactly at the limit through every write path (no walk overflows there)', async () => {
    const depth = MAX_NESTING_DEPTH;
    expect((await s.call('POST', WIDGETS, widget('deep', depth))).status).toBe(201);
    const got = await s.call('GET', `${WIDGETS}/deep`);
    expect(got.status).toBe(200);
    const { managedFields: _, ...metadata } = got.body.metadata;
    expect((await s.call('PUT', `${WIDGETS}/deep`, { ...got.body, metadata })).status).toBe(200);
    expect((await s.call('PATCH', `${WIDGETS}/deep`, { spec: { free: nested(depth - 2) } }, { headers: { 'content-type': MERGE } })).status).toBe(200);
    const replace = [{ op: 'replace', path: '/spec/free', value: nested(depth - 2) }];
    expect((await s.call('PATCH', `${WIDGETS}/deep`, replace, { headers: { 'content-type': JSON_PATCH } })).status).toBe(200);
    expect((await s.call('PATCH', `${WIDGETS}/applied?fieldManager=a`, widget('applied', depth - 5), { headers: { 'content-type': APPLY } })).status).toBe(201);
    const force = await s.call('PATCH', `${WIDGETS}/applied?fieldManager=b&force=true`, widget('applied', depth - 5, 'large'), { headers: { 'content-type': APPLY } });
    expect(force.status).toBe(200);
    expect(force.body.spec.size).toBe('large');
    const strict = await s.call('POST', `${CM}?fieldValidation=Strict`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict' }, x: nested(depth - 1) });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain('unknown field "x"');
    const yaml = await s.call('POST', WIDGETS, `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: yaml}\nspec: {size: small, free: ${'{a: '.repeat(depth - 2)}1${'}'.repeat(depth - 2)}}\n`, {
      headers: { 'content-type': 'application/yaml' },
    });
    expect(yaml.status).toBe(201);
  });

  it('answers 400 to JSON bodies one level past the limit and 100 000 levels deep, storing nothing', async () => {
    const before = await targetVersion();
    for (const depth of [MAX_NESTING_DEPTH + 1, 100_000]) {
      const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","annotations":${nestedJson(depth - 2)}}}`;
      expectTooDeep(await s.call('POST', CM, body));
      expectTooDeep(await s.call('PUT', `${CM}/target`, body.replace('"deep"', '"target"')));
      const labels = `{"metadata":{"labels":${nestedJson(depth - 2)}}}`;
      expectTooDeep(await s.call('PATCH', `${CM}/target`, labels, { headers: { 'content-type': MERGE } }));
      expectTooDeep(await s.call('PATCH', `${CM}/target`, labels, { headers: { 'content-type': STRATEGIC } }));
      expectTooDeep(await s.call('PATCH', `${CM}/target`, `[{"op":"add","path":"/metadata/labels","value":${nestedJson(depth - 2)}}]`, { headers: { 'content-type': JSON_PATCH } }));
      const applied = body.replace('"deep"', '"target"');
      expectTooDeep(await s.call('PATCH', `${CM}/target?fieldManager=m`, applied, { headers: { 'content-type': APPLY } }));
    }
    expect((await s.call('GET', `${CM}/deep`)).status).toBe(404);
    expect(await targetVersion()).toBe(before);
  });

  it('answers 400 to a JSON patch whose result is too deep, though the patch itself is not', async () => {
    const before = await targetVersion();
    const half = Math.ceil(MAX_NESTING_DEPTH / 2);
    // Two operations, each within the limit: the second adds a deep value deep inside the first.
    let path = '/metadata/labels';
    for (let i = 0; i < half; i++) path += '/a';
    const ops = [
      { op: 'add', path: '/metadata/labels', value: nested(half) },
      { op: 'replace', path, value: nested(half) },
    ];
    expectTooDeep(await s.call('PATCH', `${CM}/target`, ops, { headers: { 'content-type': JSON_PATCH } }));
    expect(await targetVersion()).toBe(before);
  });

  it('answers 400 to deep YAML, block and flow, before the YAML composer (which recurses) sees it', async () => {
    const flow = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n  annotations: ${'{a: '.repeat(100_000)}1${'}'.repeat(100_000)}\n`;
    const sequence = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n  annotations:\n  ${'- '.repeat(100_000)}1\n`;
    // Each level one column deeper than the last: the syntax tree would be exact, but slow to build.
    let indented = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n  annotations:\n';
    for (let i = 2; i < MAX_NESTING_DEPTH + 2; i++) indented += `${' '.repeat(i)}a:\n`;
    for (const body of [flow, sequence, indented]) {
      expectTooDeep(await s.call('POST', CM, body, { headers: { 'content-type': 'application/yaml' } }));
      expectTooDeep(await s.call('PATCH', `${CM}/deep?fieldManager=m`, body, { headers: { 'content-type': APPLY } }));
    }
    expect((await s.call('GET', `${CM}/deep`)).status).toBe(404);
  });

  it('answers 400 to a YAML alias inside the node it names, which would contain itself', async () => {
    const before = await targetVersion();
    const cyclic = 'apiVersion: v1\nkind: ConfigMap\nmetadata: &m\n  name: cyc\n  labels: *m\n';
    const create = await s.call('POST', CM, cyclic, { headers: { 'content-type': 'application/yaml' } });
    expect(create.status).toBe(400);
    expect(create.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(create.body.message).toContain('*m');
    const apply = await s.call('PATCH', `${CM}/target?fieldManager=m`, cyclic.replace('cyc', 'target'), { headers: { 'content-type': APPLY } });
    expect(apply.status).toBe(400);
    expect((await s.call('GET', `${CM}/cyc`)).status).toBe(404);
    expect(await targetVersion()).toBe(before);
  });

  it('answers 400 to aliases that expand a small document enormously (billion laughs)', async () => {
    let laughs = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: laughs}\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
    for (let i = 1; i < 10; i++) laughs += `l${i}: &l${i} [${new Array(9).fill(`*l${i - 1}`).join(', ')}]\n`;
    const res = await s.call('POST', CM, laughs, { headers: { 'content-type': 'application/yaml' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect((await s.call('GET', `${CM}/laughs`)).status).toBe(404);
  });

  it('still reads ordinary anchors and aliases', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aliased\n  labels: &l {app: web}\n  annotations: *l\ndata: {k: v}\n';
    const res = await s.call('POST', CM, yaml, { headers: { 'content-type': 'application/yaml' } });
    expect(res.status).toBe(201);
    expect(res.body.metadata.annotations).toEqual({ app: 'web' });
  });

  it('answers 400 to CBOR nested 100 000 deep (cbor-x would recurse that deep)', async () => {
    const before = await targetVersion();
    const head = encodeCbor({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cbor' } });
    // A map of one more field whose value is 100 000 one-item arrays: replace the map header (a3 → a4).
    const bytes = Buffer.concat([head.subarray(0, 3), Uint8Array.of(0xa4), head.subarray(4), Uint8Array.of(0x61, 0x78), Buffer.alloc(100_000, 0x81), Uint8Array.of(0x01)]);
    const res = await s.app.inject({ method: 'POST', url: CM, headers: { ...auth, 'content-type': 'application/cbor' }, payload: bytes });
    expectTooDeep({ status: res.statusCode, body: res.json(), headers: res.headers });
    const apply = await s.app.inject({ method: 'PATCH', url: `${CM}/target?fieldManager=m`, headers: { ...auth, 'content-type': 'application/apply-patch+cbor' }, payload: bytes });
    expect(apply.statusCode).toBe(400);
    expect(await targetVersion()).toBe(before);
  });
});
