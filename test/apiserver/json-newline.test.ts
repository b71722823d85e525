// Every JSON body the API server writes ends with one newline, as Go's json.Encoder writes
// Kubernetes' bodies: objects (the shared bytes of a version on the hot path too), lists (streamed,
// paged, in views), Status errors, Tables, discovery; gzipped bodies carry it inside the gzip.
// Other codecs and the watch's own framing are left as they are.
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TOKEN, type TestServer } from './harness.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const LEASES_UPSTREAM = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';
const POM = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const POML = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

interface Raw {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

describe('JSON bodies end with a newline', () => {
  let s: TestServer;
  const raw = async (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Raw> => {
    const res = await fetch(`${s.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  /** The body as it comes over the wire (fetch would decompress it). */
  const gzipped = (path: string) =>
    new Promise<{ encoding: string | undefined; bytes: Buffer }>((resolve, reject) => {
      const req = request(`${s.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}`, 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  /** One JSON document followed by exactly one newline. */
  const expectOneDocument = (r: Raw, what: string) => {
    const text = r.bytes.toString('utf8');
    expect(text.endsWith('\n'), `${what} ends with a newline`).toBe(true);
    expect(text.endsWith('\n\n'), `${what} ends with one newline`).toBe(false);
    expect(() => JSON.parse(text), what).not.toThrow();
    const length = r.headers.get('content-length');
    // (fetch asks for gzip and inflates: a compressed answer's length is the gzip's.)
    if (length !== null && !r.headers.has('content-encoding')) expect(Number(length), `${what}: Content-Length counts the newline`).toBe(r.bytes.length);
    return JSON.parse(text) as Record<string, unknown>;
  };

  beforeAll(async () => {
    s = await startTestServer('memory', { listen: true });
    for (const name of ['a', 'b', 'c']) expect((await s.call('POST', CMS, { metadata: { name }, data: { k: name } })).status).toBe(201);
    expect((await s.call('POST', LEASES_UPSTREAM, { metadata: { name: 'l' }, spec: { holderIdentity: 'x' } })).status).toBe(201);
  });
  afterAll(() => s.close());

  it('objects: the hot path, pretty, views, upstream names, and the answers of writes', async () => {
    const plain = await raw('GET', `${CMS}/a`);
    expect(expectOneDocument(plain, 'GET')).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'a' } });
    // Twice: the newline is not added to the shared bytes of the version.
    expect((await raw('GET', `${CMS}/a`)).bytes.equals(plain.bytes)).toBe(true);
    expectOneDocument(await raw('GET', `${CMS}/a?pretty=true`), 'GET pretty');
    expect(expectOneDocument(await raw('GET', `${CMS}/a`, { headers: { accept: TABLE } }), 'Table')).toMatchObject({ kind: 'Table' });
    expect(expectOneDocument(await raw('GET', `${CMS}/a`, { headers: { accept: POM } }), 'PartialObjectMetadata')).toMatchObject({ kind: 'PartialObjectMetadata' });
    expect(expectOneDocument(await raw('GET', `${LEASES_UPSTREAM}/l`), 'upstream GET')).toMatchObject({ apiVersion: 'coordination.k8s.io/v1' });
    const created = await raw('POST', CMS, { body: { metadata: { name: 'd' } } });
    expect(created.status).toBe(201);
    expectOneDocument(created, 'create');
    expectOneDocument(await raw('PUT', `${CMS}/d`, { body: { metadata: { name: 'd' }, data: { x: 'y' } } }), 'update');
    const patched = await raw('PATCH', `${CMS}/d`, { body: { data: { z: '1' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expectOneDocument(patched, 'patch');
    expect(expectOneDocument(await raw('DELETE', `${CMS}/d`), 'delete')).toMatchObject({ kind: 'Status', status: 'Success' });
  });

  it('lists: streamed item by item, paged, and in views; items are not newline-terminated inside', async () => {
    const list = await raw('GET', CMS);
    const text = list.bytes.toString('utf8');
    expect(text.endsWith(']}\n')).toBe(true);
    expect(text.slice(0, -1)).not.toContain('\n');
    expect(expectOneDocument(list, 'list')).toMatchObject({ kind: 'ConfigMapList' });
    const page = expectOneDocument(await raw('GET', `${CMS}?limit=1`), 'page');
    expect((page['metadata'] as { continue?: string }).continue).toBeTruthy();
    expectOneDocument(await raw('GET', `${CMS}?pretty=true`), 'pretty list');
    expect(expectOneDocument(await raw('GET', CMS, { headers: { accept: TABLE } }), 'Table list')).toMatchObject({ kind: 'Table' });
    expect(expectOneDocument(await raw('GET', CMS, { headers: { accept: POML } }), 'metadata list')).toMatchObject({ kind: 'PartialObjectMetadataList' });
    expect(expectOneDocument(await raw('GET', LEASES_UPSTREAM), 'upstream list')).toMatchObject({ apiVersion: 'coordination.k8s.io/v1' });
  });

  it('Status errors and discovery', async () => {
    const missing = await raw('GET', `${CMS}/nope`);
    expect(missing.status).toBe(404);
    expect(expectOneDocument(missing, '404')).toMatchObject({ kind: 'Status', reason: 'NotFound' });
    const refused = await raw('GET', `${CMS}/a`, { headers: { accept: 'text/html' } });
    expect(refused.status).toBe(406);
    expectOneDocument(refused, '406');
    const invalid = await raw('POST', CMS, { body: { metadata: { name: 'Not_Valid' } } });
    expect(invalid.status).toBe(422);
    expectOneDocument(invalid, '422');
    expect((await raw('GET', '/nowhere')).bytes.toString().endsWith('}\n')).toBe(true);
    for (const path of ['/api', '/apis', '/api/v1', '/apis/apps/v1', '/apis/coordination.k8s.io/v1', '/version', '/openapi/v3']) {
      expectOneDocument(await raw('GET', path), path);
    }
  });

  it('the answers of virtual types and subresources', async () => {
    const review = await raw('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } },
    });
    expect(review.status).toBe(201);
    expect(expectOneDocument(review, 'access review')).toMatchObject({ kind: 'SelfSubjectAccessReview', status: { allowed: true } });
    expect((await s.call('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } })).status).toBe(201);
    // This server issues no service-account tokens: the refusal is a Status like any other.
    const token = await raw('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } });
    expect(expectOneDocument(token, 'token request')).toMatchObject({ kind: 'Status' });
    const scale = await raw('GET', '/apis/apps/v1/namespaces/default/deployments/none/scale');
    expect(scale.status).toBe(404);
    expectOneDocument(scale, 'scale 404');
  });

  it('a gzipped body carries the newline inside the gzip', async () => {
    const big = 'x'.repeat(200 * 1024);
    expect((await s.call('POST', CMS, { metadata: { name: 'big' }, data: { big } })).status).toBe(201);
    for (const path of [`${CMS}/big`, CMS]) {
      const res = await gzipped(path);
      expect(res.encoding).toBe('gzip');
      const text = gunzipSync(res.bytes).toString('utf8');
      expect(text.endsWith('}\n') && !text.endsWith('\n\n'), path).toBe(true);
    }
    // Without gzip, the large object leaves through the same path, newline included.
    expectOneDocument(await raw('GET', `${CMS}/big`), 'large GET');
  });

  it('leaves YAML and the watch framing as they are: one event per line, no newline inside one', async () => {
    const yaml = (await raw('GET', `${CMS}/a`, { headers: { accept: 'application/yaml' } })).bytes.toString('utf8');
    expect(yaml.endsWith('\n') && !yaml.endsWith('\n\n')).toBe(true);
    const watch = (await raw('GET', `${CMS}?watch=1&resourceVersion=0&timeoutSeconds=1`)).bytes.toString('utf8');
    const lines = watch.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line) as { type: string; object: { metadata: { name: string } } }).map((e) => [e.type, e.object.metadata.name])).toEqual(
      expect.arrayContaining([['ADDED', 'a'], ['ADDED', 'b'], ['ADDED', 'c']]),
    );
  });
});
