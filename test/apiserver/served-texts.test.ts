// A write's protobuf answer takes the version's message bytes from the watch cache's bytes of it
// (served-texts.ts), found by the answer's JSON text: on the memory and sqlite stores (the cache
// hears of a commit before the writer is answered), the answer is the same bytes a protobuf GET of
// that version sends, and decodes to the JSON answer. The table is bounded by the texts' size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobuf } from '../../src/encoding/index.js';
import { rememberServedText, servedBytesOfText } from '../../src/apiserver/served-texts.js';
import { startTestServer, TOKEN, type BackendName, type TestServer } from './harness.js';

const auth = { authorization: `Bearer ${TOKEN}` };
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
// svc's own group: the upstream name (coordination.k8s.io) is answered renamed, a text of its own.
const LEASES = '/apis/coordination.svc.io/v1/namespaces/default/leases';

describe.each<BackendName>(['memory', 'sqlite'])('a protobuf write answer on %s', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(backend);
  });
  afterAll(() => s.close());

  it('is the cached version in protobuf: the GET of it byte for byte, decoding to the JSON answer', async () => {
    const created = await s.call('POST', LEASES, { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: 'n1' }, spec: { holderIdentity: 'n1', leaseDurationSeconds: 40 } });
    expect(created.status).toBe(201);
    const renewed = { ...created.body, spec: { ...created.body.spec, renewTime: '2026-11-27T17:00:00.000000Z' } };
    // The JSON answer's text is the cache's text of the version.
    const json = await s.app.inject({ method: 'PUT', url: `${LEASES}/n1`, headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify(renewed) });
    expect(json.statusCode).toBe(200);
    const text = json.body.trimEnd();
    expect(Buffer.from(servedBytesOfText(text)!).toString('utf8')).toBe(text);

    const again = { ...JSON.parse(text), spec: { ...renewed.spec, renewTime: '2026-11-27T17:00:10.000000Z' } };
    const pb = await s.app.inject({ method: 'PUT', url: `${LEASES}/n1`, headers: { ...auth, 'content-type': 'application/json', accept: PROTOBUF }, payload: JSON.stringify(again) });
    expect(pb.statusCode).toBe(200);
    expect(pb.headers['content-type']).toBe(PROTOBUF);
    const answer = decodeProtobuf(pb.rawPayload);
    expect(answer).toMatchObject({ kind: 'Lease', metadata: { name: 'n1' }, spec: { renewTime: '2026-11-27T17:00:10.000000Z' } });
    const get = await s.app.inject({ method: 'GET', url: `${LEASES}/n1`, headers: { ...auth, accept: PROTOBUF } });
    expect(get.rawPayload.equals(pb.rawPayload)).toBe(true);
    const getJson = await s.call('GET', `${LEASES}/n1`);
    expect((answer as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe(getJson.body.metadata.resourceVersion);

    // Through the upstream group name the answer is renamed as before.
    const upstream = { ...getJson.body, apiVersion: 'coordination.k8s.io/v1', spec: { ...getJson.body.spec, renewTime: '2026-11-27T17:00:20.000000Z' } };
    const renamed = await s.app.inject({ method: 'PUT', url: `${LEASES.replace('svc.io', 'k8s.io')}/n1`, headers: { ...auth, 'content-type': 'application/json', accept: PROTOBUF }, payload: JSON.stringify(upstream) });
    expect(renamed.statusCode).toBe(200);
    expect(decodeProtobuf(renamed.rawPayload)).toMatchObject({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', spec: { renewTime: '2026-11-27T17:00:20.000000Z' } });
  });
});

describe('the served texts table', () => {
  it('keeps the newest texts up to its size and never a large one', () => {
    const big = 'x'.repeat(16 * 1024 + 1);
    rememberServedText(big, new Uint8Array(1));
    expect(servedBytesOfText(big)).toBeUndefined();
    const texts = Array.from({ length: 300 }, (_, i) => `${String(i).padStart(4, '0')}${'y'.repeat(10_000)}`);
    texts.forEach((text, i) => rememberServedText(text, Uint8Array.of(i % 256)));
    // 2 MiB of 10 KB texts: the first ones are gone, the last ones kept.
    expect(servedBytesOfText(texts[0]!)).toBeUndefined();
    expect(servedBytesOfText(texts[299]!)).toEqual(Uint8Array.of(299 % 256));
    const kept = texts.filter((text) => servedBytesOfText(text) !== undefined).length;
    expect(kept).toBeGreaterThan(150);
    expect(kept * 10_004).toBeLessThanOrEqual(2 * 1024 * 1024);
  });
});
