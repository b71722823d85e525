import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { builtinTypes, defineResourceType, objectMetaSchema, ResourceRegistry, type KubeObject } from '../../src/api/index.js';
import { buildApp } from '../../src/apiserver/index.js';
import { decodeCbor, decodeProtobuf, encodeCbor, encodeProtobuf, protoRoot, type JsonObject } from '../../src/encoding/index.js';
import { MemoryStore } from '../../src/storage/index.js';
import { startTestServer, TOKEN, USER, type TestServer } from '../apiserver/harness.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const PODS = '/api/v1/namespaces/default/pods';
const PB = 'application/vnd.svc.protobuf';
const KPB = 'application/vnd.kubernetes.protobuf';
const auth = { authorization: `Bearer ${TOKEN}` };
const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'a', image: 'nginx', ports: [{ containerPort: 80 }] }] } });

/** The frames of a protobuf watch stream: 4-byte big-endian length, then a WatchEvent. */
function protobufFrames(bytes: Buffer): { type: string; object: JsonObject }[] {
  const watchEvent = protoRoot.lookupType('svc.meta.v1.WatchEvent');
  const out: { type: string; object: JsonObject }[] = [];
  for (let at = 0; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const event = watchEvent.decode(bytes.subarray(at + 4, at + 4 + length)) as unknown as { type: string; object: { raw: Uint8Array } };
    out.push({ type: event.type, object: decodeProtobuf(event.object.raw) });
    at += 4 + length;
  }
  return out;
}

/** The items of a CBOR sequence (each begins with the self-described tag). */
function cborItems(bytes: Buffer): unknown[] {
  const starts: number[] = [];
  for (let i = bytes.indexOf('d9d9f7', 0, 'hex'); i >= 0; i = bytes.indexOf('d9d9f7', i + 3, 'hex')) starts.push(i);
  return starts.map((start, i) => decodeCbor(bytes.subarray(start, starts[i + 1] ?? bytes.length)));
}

describe('protobuf over the API', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory', { listen: true });
    for (const name of ['p1', 'p2']) expect((await s.call('POST', PODS, pod(name))).status).toBe(201);
  });
  afterAll(() => s.close());

  it('answers get and list in the envelope, under either media type name', async () => {
    const json = await s.call('GET', `${PODS}/p1`);
    for (const type of [PB, KPB]) {
      const res = await s.app.inject({ method: 'GET', url: `${PODS}/p1`, headers: { ...auth, accept: `${type}, application/json` } });
      expect(res.headers['content-type']).toBe(type);
      expect([...res.rawPayload.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
      expect(decodeProtobuf(res.rawPayload)).toEqual(json.body);
    }
    const list = await s.app.inject({ method: 'GET', url: PODS, headers: { ...auth, accept: PB } });
    const decoded = decodeProtobuf(list.rawPayload);
    expect(decoded).toMatchObject({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } });
    expect((decoded['items'] as JsonObject[]).map((i) => (i['metadata'] as JsonObject)['name'])).toEqual(['p1', 'p2']);
  });

  it('serves the metadata-only and Table views in protobuf', async () => {
    const meta = await s.app.inject({ method: 'GET', url: PODS, headers: { ...auth, accept: `${PB};as=PartialObjectMetadataList;g=meta.svc.io;v=v1` } });
    expect(decodeProtobuf(meta.rawPayload)).toMatchObject({ kind: 'PartialObjectMetadataList', items: [{ metadata: { name: 'p1' } }, { metadata: { name: 'p2' } }] });
    const table = await s.app.inject({ method: 'GET', url: `${PODS}/p1`, headers: { ...auth, accept: `${PB};as=Table;g=meta.svc.io;v=v1` } });
    expect(decodeProtobuf(table.rawPayload)).toMatchObject({ kind: 'Table', rows: [{ cells: ['p1', '0/1', 'Pending', '0', expect.any(String), '<none>', '<none>', '<none>', '<none>'] }] });
  });

  it('creates from a protobuf body, and answers in protobuf', async () => {
    const res = await s.app.inject({ method: 'POST', url: PODS, headers: { ...auth, 'content-type': KPB, accept: `${KPB}, application/json` }, payload: Buffer.from(encodeProtobuf(pod('p3'))) });
    expect(res.statusCode).toBe(201);
    expect(decodeProtobuf(res.rawPayload)).toMatchObject({ kind: 'Pod', metadata: { name: 'p3', uid: expect.any(String) }, spec: { containers: [{ name: 'a', ports: [{ containerPort: 80 }] }] } });
    expect((await s.call('DELETE', `${PODS}/p3`)).status).toBe(200);
  });

  it('refuses bodies that are not the protobuf they claim with 400, storing nothing', async () => {
    const before = (await s.call('GET', PODS)).body.items.length;
    const wrongMagic = Buffer.from(encodeProtobuf(pod('bad1')));
    wrongMagic[0] = 0x6c;
    for (const payload of [wrongMagic, Buffer.from(JSON.stringify(pod('bad2'))), Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x12, 0x7f])]) {
      const res = await s.app.inject({ method: 'POST', url: PODS, headers: { ...auth, 'content-type': PB }, payload });
      expect(res.statusCode).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    }
    expect((await s.call('GET', PODS)).body.items.length).toBe(before);
  });

  it('streams watch events framed by a 4-byte length, each object in its envelope', async () => {
    const res = await fetch(`${s.url}${PODS}?watch=1&resourceVersion=0&timeoutSeconds=1&allowWatchBookmarks=true`, { headers: { ...auth, accept: KPB } });
    expect(res.headers.get('content-type')).toBe(`${KPB};stream=watch`);
    const frames = protobufFrames(Buffer.from(await res.arrayBuffer()));
    expect(frames.slice(0, 2).map((f) => [f.type, (f.object['metadata'] as JsonObject)['name']])).toEqual([['ADDED', 'p1'], ['ADDED', 'p2']]);
    expect(frames[0]!.object).toMatchObject({ kind: 'Pod', apiVersion: 'v1', spec: { containers: [{ image: 'nginx' }] } });
  });

  it('sends each written version in a protobuf watch as the JSON watch sends it (encoded from the writer\'s object, not a parse)', async () => {
    const from = (await s.call('GET', PODS)).body.metadata.resourceVersion as string;
    const url = `${s.url}${PODS}?watch=1&resourceVersion=${from}&timeoutSeconds=2`;
    const inProtobuf = fetch(url, { headers: { ...auth, accept: KPB } }).then(async (res) => protobufFrames(Buffer.from(await res.arrayBuffer())));
    const inJson = fetch(url, { headers: { ...auth, accept: 'application/json' } }).then(async (res) =>
      (await res.text()).split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { type: string; object: JsonObject }),
    );
    expect((await s.call('POST', PODS, { ...pod('w1'), metadata: { name: 'w1', labels: { app: 'w' }, annotations: { a: 'b' } } })).status).toBe(201);
    const status = { status: { phase: 'Running', podIP: '10.0.0.9', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-27T17:00:00Z' }] } };
    expect((await s.call('PATCH', `${PODS}/w1/status`, status, { headers: { 'content-type': 'application/merge-patch+json' } })).status).toBe(200);
    expect((await s.call('PATCH', `${PODS}/w1`, { metadata: { labels: { app: 'x', tier: null } } }, { headers: { 'content-type': 'application/merge-patch+json' } })).status).toBe(200);
    expect((await s.call('DELETE', `${PODS}/w1`)).status).toBe(200);
    const [protobufEvents, jsonEvents] = await Promise.all([inProtobuf, inJson]);
    expect(jsonEvents.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    expect(protobufEvents).toEqual(jsonEvents);
  });
});

describe('protobuf and custom types', () => {
  it('is not offered for a custom type: 406 when it is the only type accepted, JSON as a fallback', async () => {
    const widget = defineResourceType({ group: 'example.com', version: 'v1', kind: 'Widget', resource: 'widgets', namespaced: true, schema: z.looseObject({ metadata: objectMetaSchema }) as unknown as z.ZodType<KubeObject> });
    const store = new MemoryStore();
    const app = await buildApp({ store, authenticate: () => USER, registry: new ResourceRegistry([...builtinTypes, widget]) });
    try {
      const url = '/apis/example.com/v1/namespaces/default/widgets';
      expect((await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }) })).statusCode).toBe(201);
      const only = await app.inject({ method: 'GET', url, headers: { accept: PB } });
      expect(only.statusCode).toBe(406);
      expect(JSON.parse(only.body)).toMatchObject({ reason: 'NotAcceptable' });
      const fallback = await app.inject({ method: 'GET', url: `${url}/w`, headers: { accept: `${PB}, application/json` } });
      expect(fallback.headers['content-type']).toMatch(/^application\/json/);
      const table = await app.inject({ method: 'GET', url, headers: { accept: 'application/json;as=Table;g=meta.svc.io;v=v1' } });
      expect(JSON.parse(table.body).columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Created At']);
    } finally {
      await app.close();
      await store.close();
    }
  });
});

describe('CBOR', () => {
  it('is off by default: 406 for Accept, 415 for bodies', async () => {
    const s = await startTestServer('memory');
    try {
      expect((await s.call('GET', CMS, undefined, { headers: { accept: 'application/cbor' } })).status).toBe(406);
      const res = await s.app.inject({ method: 'POST', url: CMS, headers: { ...auth, 'content-type': 'application/cbor' }, payload: Buffer.from(encodeCbor({ metadata: { name: 'x' } })) });
      expect(res.statusCode).toBe(415);
    } finally {
      await s.close();
    }
  });

  describe('with CBORServingAndStorage', () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer('memory', { listen: true, featureGates: { CBORServingAndStorage: true } });
    });
    afterAll(() => s.close());
    const cbor = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown, contentType = 'application/cbor') =>
      s.app.inject({ method, url, headers: { ...auth, accept: 'application/cbor', ...(body ? { 'content-type': contentType } : {}) }, ...(body ? { payload: Buffer.from(encodeCbor(body)) } : {}) });

    it('creates from CBOR and answers single items and lists in CBOR', async () => {
      const created = await cbor('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { k: 'v' } });
      expect(created.statusCode).toBe(201);
      expect(created.headers['content-type']).toBe('application/cbor');
      expect([...created.rawPayload.subarray(0, 3)]).toEqual([0xd9, 0xd9, 0xf7]);
      expect(decodeCbor(created.rawPayload)).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'c1' }, data: { k: 'v' } });
      const one = await cbor('GET', `${CMS}/c1`);
      expect(decodeCbor(one.rawPayload)).toEqual((await s.call('GET', `${CMS}/c1`)).body);
      const list = await cbor('GET', CMS);
      expect(decodeCbor(list.rawPayload)).toMatchObject({ kind: 'ConfigMapList', items: [{ metadata: { name: 'c1' } }] });
    });

    it('applies an apply-patch+cbor body', async () => {
      const res = await s.app.inject({
        method: 'PATCH',
        url: `${CMS}/c2?fieldManager=tester`,
        headers: { ...auth, 'content-type': 'application/apply-patch+cbor' },
        payload: Buffer.from(encodeCbor({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c2' }, data: { applied: 'yes' } })),
      });
      expect(res.statusCode).toBe(201);
      expect((await s.call('GET', `${CMS}/c2`)).body.data).toEqual({ applied: 'yes' });
    });

    it('refuses malformed CBOR with 400 and stores nothing', async () => {
      const before = (await s.call('GET', CMS)).body.items.length;
      for (const payload of [Buffer.from('d9d9f7a1', 'hex'), Buffer.from('{"metadata":{"name":"j"}}'), Buffer.from('d9d9f7a16161fb7ff8000000000000', 'hex')]) {
        const res = await s.app.inject({ method: 'POST', url: CMS, headers: { ...auth, 'content-type': 'application/cbor' }, payload });
        expect(res.statusCode).toBe(400);
      }
      expect((await s.call('GET', CMS)).body.items.length).toBe(before);
    });

    it('streams a watch as a CBOR sequence, one tagged item per event', async () => {
      const res = await fetch(`${s.url}${CMS}?watch=1&resourceVersion=0&timeoutSeconds=1`, { headers: { ...auth, accept: 'application/cbor-seq' } });
      expect(res.headers.get('content-type')).toBe('application/cbor-seq');
      const items = cborItems(Buffer.from(await res.arrayBuffer())) as { type: string; object: JsonObject }[];
      expect(items.map((i) => [i.type, (i.object['metadata'] as JsonObject)['name']])).toEqual([['ADDED', 'c1'], ['ADDED', 'c2']]);
    });
  });
});
