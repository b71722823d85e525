import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startTestServer, TOKEN, type TestServer } from '../apiserver/harness.js';

const PODS = '/api/v1/namespaces/default/pods';
const TABLE_K8S = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'web' } },
  spec: { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'busybox' }], nodeName: 'node-1' },
});

describe('representations served by the API server', () => {
  let s: TestServer;
  const get = (url: string, accept?: string, headers: Record<string, string> = {}) => s.call('GET', url, undefined, { headers: { ...(accept ? { accept } : {}), ...headers } });

  beforeAll(async () => {
    s = await startTestServer('memory', { listen: true });
    for (const name of ['p1', 'p2']) expect((await s.call('POST', PODS, pod(name))).status).toBe(201);
    expect((await s.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c' }, data: { a: '1', b: '2' } })).status).toBe(201);
  });
  afterAll(() => s.close());

  it('keeps plain JSON as it was, and indents it with pretty=true', async () => {
    const plain = await s.app.inject({ method: 'GET', url: `${PODS}/p1`, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    // One line, ended by the newline Go's encoder writes.
    expect(plain.body.endsWith('}\n')).toBe(true);
    expect(plain.body.slice(0, -1)).not.toContain('\n');
    const pretty = await s.app.inject({ method: 'GET', url: `${PODS}/p1?pretty=true`, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(pretty.body).toContain('\n  "kind": "Pod"');
    expect(JSON.parse(pretty.body)).toEqual(JSON.parse(plain.body));
  });

  it('refuses a write with an unparsable pretty before writing anything (400, the store unchanged)', async () => {
    const CMS = '/api/v1/namespaces/default/configmaps';
    const before = (await s.call('GET', CMS)).body.metadata.resourceVersion;
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pretty-x' } };
    for (const [method, url, body] of [
      ['POST', `${CMS}?pretty=x`, cm],
      ['PUT', `${CMS}/c?pretty=x`, { ...cm, metadata: { name: 'c' } }],
      ['DELETE', `${CMS}/c?pretty=%7B`, undefined],
    ] as const) {
      const res = await s.call(method, url, body);
      expect(res.status, `${method} ${url}`).toBe(400);
      expect(res.body).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
    }
    expect((await s.call('GET', CMS)).body.metadata.resourceVersion).toBe(before);
    expect((await s.call('GET', `${CMS}/c`)).status).toBe(200);
  });

  it('answers YAML for objects and lists', async () => {
    const one = await get(`${PODS}/p1`, 'application/yaml');
    expect(one.headers['content-type']).toMatch(/^application\/yaml/);
    expect(parseYaml(one.body)).toMatchObject({ kind: 'Pod', metadata: { name: 'p1' } });
    const list = await get(PODS, 'application/yaml');
    expect(parseYaml(list.body)).toMatchObject({ kind: 'PodList', items: [{ metadata: { name: 'p1' } }, { metadata: { name: 'p2' } }] });
  });

  it('serves a pod Table with the kubectl columns, in the group asked for', async () => {
    const table = await get(PODS, TABLE_K8S);
    expect(table.status).toBe(200);
    expect(table.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(table.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(table.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    expect(table.body.rows).toHaveLength(2);
    expect(table.body.rows[0].cells.slice(0, 4)).toEqual(['p1', '0/2', 'Pending', '0']);
    expect(table.body.rows[0].cells[6]).toBe('node-1');
    expect(table.body.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'p1' } });
    expect(table.body.rows[0].object.spec).toBeUndefined();
  });

  it('honours includeObject and rejects an unknown value', async () => {
    const none = await get(`${PODS}?includeObject=None`, 'application/json;as=Table;g=meta.svc.io;v=v1');
    expect(none.body.apiVersion).toBe('meta.svc.io/v1');
    expect(none.body.rows[0].object).toBeUndefined();
    const full = await get(`${PODS}/p2?includeObject=Object`, 'application/json;as=Table;g=meta.svc.io;v=v1');
    expect(full.body.rows).toHaveLength(1);
    expect(full.body.rows[0].object).toMatchObject({ kind: 'Pod', spec: { nodeName: 'node-1' } });
    const bad = await get(`${PODS}?includeObject=Everything`, 'application/json;as=Table;g=meta.svc.io;v=v1');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('unrecognized includeObject value');
  });

  it('uses Name and Created At for types without columns, per-kind columns for ConfigMap', async () => {
    const roles = await get('/apis/rbac.authorization.svc.io/v1/clusterroles', 'application/json;as=Table;g=meta.svc.io;v=v1');
    expect(roles.body.columnDefinitions.map((c: { name: string; type: string }) => [c.name, c.type])).toEqual([['Name', 'string'], ['Created At', 'date']]);
    const cms = await get('/api/v1/namespaces/default/configmaps', 'application/json;as=Table;g=meta.svc.io;v=v1');
    expect(cms.body.rows[0].cells.slice(0, 2)).toEqual(['c', 2]);
  });

  it('serves PartialObjectMetadata and PartialObjectMetadataList (the List for a list either way), and 406 for a List of one object', async () => {
    const one = await get(`${PODS}/p1`, 'application/json;as=PartialObjectMetadata;g=meta.svc.io;v=v1');
    expect(one.body).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.svc.io/v1', metadata: expect.objectContaining({ name: 'p1' }) });
    const list = await get(PODS, 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1');
    expect(list.body).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', items: [{ kind: 'PartialObjectMetadata', metadata: { name: 'p1' } }, { metadata: { name: 'p2' } }] });
    expect(list.body.items[0].spec).toBeUndefined();
    const asObject = await get(PODS, 'application/json;as=PartialObjectMetadata;g=meta.svc.io;v=v1');
    expect(asObject.status).toBe(200);
    expect(asObject.body).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.svc.io/v1', items: [{ kind: 'PartialObjectMetadata', metadata: { name: 'p1' } }, { metadata: { name: 'p2' } }] });
    expect(asObject.body.items[0].spec).toBeUndefined();
    const wrong = await get(`${PODS}/p1`, 'application/json;as=PartialObjectMetadataList;g=meta.svc.io;v=v1');
    expect(wrong.status).toBe(406);
    expect(wrong.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    const fallback = await get(`${PODS}/p1`, 'application/json;as=PartialObjectMetadataList;g=meta.svc.io;v=v1, application/json;q=0.9');
    expect(fallback.body.kind).toBe('Pod');
  });

  it('answers 406 for types it cannot serve and 415 for bodies it cannot read', async () => {
    expect((await get(PODS, 'text/html')).status).toBe(406);
    expect((await get(PODS, 'application/cbor')).status).toBe(406);
    const refused = await s.call('POST', PODS, pod('p9'), { headers: { accept: 'text/html' } });
    expect(refused.status).toBe(406);
    expect((await s.call('GET', `${PODS}/p9`)).status).toBe(404);
    const sent = await s.call('POST', PODS, 'x: 1', { headers: { 'content-type': 'text/plain' } });
    expect(sent.status).toBe(415);
    expect(sent.body.reason).toBe('UnsupportedMediaType');
  });

  it('refuses malformed YAML and bodies that are not their Content-Type with 400, storing nothing', async () => {
    const before = (await s.call('GET', PODS)).body.items.length;
    const bodies: [string, string | Buffer][] = [
      ['application/yaml', 'metadata: {name: [unclosed'],
      ['application/yaml', Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xfe])],
      ['application/json', 'kind: Pod'],
    ];
    for (const [type, payload] of bodies) {
      const res = await s.app.inject({ method: 'POST', url: PODS, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type }, payload });
      expect(res.statusCode, type).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    }
    expect((await s.call('GET', PODS)).body.items.length).toBe(before);
  });

  it('streams Table and metadata-only watch events', async () => {
    const res = await fetch(`${s.url}${PODS}?watch=1&resourceVersion=0&timeoutSeconds=1`, {
      headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' },
    });
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ type: 'ADDED', object: { kind: 'Table', rows: [{ cells: ['p1'.valueOf(), '0/2', 'Pending', '0', expect.any(String), '<none>', 'node-1', '<none>', '<none>'] }] } });
    expect(lines[0].object.columnDefinitions).toHaveLength(9);
    expect(lines[1].object.columnDefinitions).toBeUndefined();
    const meta = await fetch(`${s.url}${PODS}?watch=1&resourceVersion=0&timeoutSeconds=1`, {
      headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json;as=PartialObjectMetadata;g=meta.svc.io;v=v1' },
    });
    const events = (await meta.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(events[0]).toEqual({ type: 'ADDED', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.svc.io/v1', metadata: expect.objectContaining({ name: 'p1' }) } });
  });
});

describe('gzip of get and list', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory');
    const big = 'x'.repeat(4000);
    for (let i = 0; i < 60; i++) {
      expect((await s.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `c${i}` }, data: { big } })).status).toBe(201);
    }
  });
  afterAll(() => s.close());
  const list = (headers: Record<string, string>) => s.app.inject({ method: 'GET', url: '/api/v1/namespaces/default/configmaps', headers: { authorization: `Bearer ${TOKEN}`, ...headers } });

  it('compresses a list over 128 KiB for a client that accepts gzip, with Vary', async () => {
    const res = await list({ 'accept-encoding': 'gzip' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['vary']).toBe('Accept-Encoding');
    const body = JSON.parse(gunzipSync(res.rawPayload).toString());
    expect(body.items).toHaveLength(60);
    expect(res.rawPayload.length).toBeLessThan(64 * 1024);
  });

  it('sends it as it is without Accept-Encoding, and small answers never compressed', async () => {
    const res = await list({});
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.body).items).toHaveLength(60);
    const small = await s.app.inject({ method: 'GET', url: '/api/v1/namespaces/default/configmaps/c1', headers: { authorization: `Bearer ${TOKEN}`, 'accept-encoding': 'gzip' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    const limited = await s.app.inject({ method: 'GET', url: '/api/v1/namespaces/default/configmaps?limit=2', headers: { authorization: `Bearer ${TOKEN}`, 'accept-encoding': 'gzip' } });
    expect(limited.headers['content-encoding']).toBeUndefined();
  });

  it('does not compress when APIResponseCompression is off', async () => {
    const off = await startTestServer('memory', { featureGates: { APIResponseCompression: false } });
    try {
      for (let i = 0; i < 40; i++) await off.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `c${i}` }, data: { big: 'y'.repeat(4000) } });
      const res = await off.app.inject({ method: 'GET', url: '/api/v1/namespaces/default/configmaps', headers: { authorization: `Bearer ${TOKEN}`, 'accept-encoding': 'gzip' } });
      expect(res.headers['content-encoding']).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});
