// A write's protobuf answer takes the version's message bytes from the watch cache's bytes of it
// (served-texts.ts), found by the answer's JSON text: on the memory and sqlite stores (the cache
// hears of a commit before the writer is answered), the answer is the same bytes a protobuf GET of
// that version sends, and decodes to the JSON answer. The table is each server's own (its
// ResourceCaches': two in one process share nothing, and a stopped one holds nothing), and bounded
// by the texts' size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/api/index.js';
import { decodeProtobuf } from '../../src/encoding/index.js';
import { ResourceCaches } from '../../src/apiserver/resource-caches.js';
import { objectKey } from '../../src/apiserver/object-keys.js';
import { encodeForStorage } from '../../src/apiserver/storage-codec.js';
import { ServedTexts } from '../../src/apiserver/served-texts.js';
import { MemoryStore } from '../../src/storage/index.js';
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

describe("each server's served texts", () => {
  const registry = builtinRegistry();
  const leases = registry.lookup('coordination.svc.io', 'v1', 'leases')!;
  const lease = (holder: string) => ({ kind: 'Lease', apiVersion: 'coordination.svc.io/v1', metadata: { name: 'n1', namespace: 'default' }, spec: { holderIdentity: holder } });
  // The served text of a version: the stored JSON with its resourceVersion first in metadata.
  const servedText = (holder: string, revision: number) =>
    `{"kind":"Lease","apiVersion":"coordination.svc.io/v1","metadata":{"resourceVersion":"${revision}","name":"n1","namespace":"default"},"spec":{"holderIdentity":"${holder}"}}`;

  it('are kept by the server that wrote the version, not by another in the same process, and dropped when it stops', async () => {
    const [storeA, storeB] = [new MemoryStore(), new MemoryStore()];
    const a = new ResourceCaches({ store: storeA, registry });
    const b = new ResourceCaches({ store: storeB, registry });
    await Promise.all([a.start(), b.start()]);
    try {
      expect(a.servedTexts).not.toBe(b.servedTexts);
      // The same write on both stores, as this server's write path hands it over (the object remembered with the bytes).
      const wroteA = await storeA.create(objectKey(storeA, leases, 'default', 'n1'), encodeForStorage(lease('a') as never, leases, true));
      const text = servedText('a', wroteA.modRevision);
      expect(Buffer.from(a.servedTexts.bytesOf(text)!).toString('utf8')).toBe(text);
      expect(b.servedTexts.bytesOf(text)).toBeUndefined();
      const wroteB = await storeB.create(objectKey(storeB, leases, 'default', 'n1'), encodeForStorage(lease('b') as never, leases, true));
      expect(b.servedTexts.bytesOf(servedText('b', wroteB.modRevision))).toBeDefined();
      expect(a.servedTexts.bytesOf(servedText('b', wroteB.modRevision))).toBeUndefined();
    } finally {
      a.stop();
      b.stop();
    }
    expect(a.servedTexts.heldChars).toBe(0);
    expect(b.servedTexts.heldChars).toBe(0);
  });
});

describe('the served texts table', () => {
  it('keeps the newest texts up to its size and never a large one', () => {
    const table = new ServedTexts();
    const big = 'x'.repeat(16 * 1024 + 1);
    table.remember(big, new Uint8Array(1));
    expect(table.bytesOf(big)).toBeUndefined();
    const texts = Array.from({ length: 300 }, (_, i) => `${String(i).padStart(4, '0')}${'y'.repeat(10_000)}`);
    texts.forEach((text, i) => table.remember(text, Uint8Array.of(i % 256)));
    // 2 MiB of 10 KB texts: the first ones are gone, the last ones kept.
    expect(table.bytesOf(texts[0]!)).toBeUndefined();
    expect(table.bytesOf(texts[299]!)).toEqual(Uint8Array.of(299 % 256));
    const kept = texts.filter((text) => table.bytesOf(text) !== undefined).length;
    expect(kept).toBeGreaterThan(150);
    expect(kept * 10_004).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(table.heldChars).toBe(kept * 10_004);
  });

  it('holds at most the bound it was given', () => {
    const table = new ServedTexts({ maxHeldChars: 100, maxTextChars: 40 });
    for (let i = 0; i < 50; i++) table.remember(`text-${String(i).padStart(3, '0')}-${'z'.repeat(21)}`, Uint8Array.of(i));
    // Each text is 30 characters: three fit in 100.
    expect(table.heldChars).toBe(90);
    expect([47, 48, 49].map((i) => table.bytesOf(`text-${String(i).padStart(3, '0')}-${'z'.repeat(21)}`))).toEqual([Uint8Array.of(47), Uint8Array.of(48), Uint8Array.of(49)]);
    expect(table.bytesOf(`text-046-${'z'.repeat(21)}`)).toBeUndefined();
    table.remember('w'.repeat(41), Uint8Array.of(1));
    expect(table.bytesOf('w'.repeat(41))).toBeUndefined();
  });
});
