import { filter, firstValueFrom, ReplaySubject, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError, type ConfigMap, type Pod } from '../../src/api/index.js';
import { builtin, loadProtobufCodec, type Client, type Codec, type WatcherEvent } from '../../src/client/index.js';
import { encodeProtobuf, protobufCodec as serverProtobuf } from '../../src/encoding/index.js';
import { cm, startClientTestServer, type ClientTestServer } from './support.js';

let t: ClientTestServer;
let codec: Codec;
let client: Client;
beforeAll(async () => {
  t = await startClientTestServer();
  codec = await loadProtobufCodec();
  client = t.newClient({ codec });
});
afterAll(() => t.close());

const pod = (name: string): Pod =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: 'pb' } },
    spec: { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '1'], env: [{ name: 'A', value: 'b' }] }] },
  }) as Pod;

describe('the protobuf client codec against svc-apiserver', () => {
  it('creates, reads, updates and deletes objects in protobuf both ways', async () => {
    const created = await client.create(builtin.pods, pod('pb-1'));
    expect(created.metadata.uid).toBeTypeOf('string');
    expect(created.spec?.containers[0]).toMatchObject({ name: 'c', image: 'busybox', command: ['sleep', '1'], env: [{ name: 'A', value: 'b' }] });
    const got = await client.get(builtin.pods, 'pb-1');
    expect(got).toMatchObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pb-1', labels: { app: 'pb' } } });
    const updated = await client.update(builtin.pods, { ...got, metadata: { ...got.metadata, labels: { app: 'pb', v: '2' } } });
    expect(updated.metadata.labels).toEqual({ app: 'pb', v: '2' });
    await client.delete(builtin.pods, 'pb-1', { gracePeriodSeconds: 0 });
    const fetched = await client.get(builtin.pods, 'pb-1').catch((error: unknown) => error);
    expect(isStatusError(fetched, 'NotFound')).toBe(true);
  });

  it('sends protobuf and asks for protobuf with a JSON fallback', async () => {
    const encoded = codec.encode(cm('enc'));
    expect(encoded.contentType).toBe('application/vnd.svc.protobuf');
    expect(Array.from((encoded.body as Uint8Array).subarray(0, 4))).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect(codec.mediaType).toMatch(/^application\/vnd\.svc\.protobuf, application\/json/);
    // A body of a kind without a protobuf message goes as JSON.
    expect(codec.encode({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' } }).contentType).toBe('application/json');
  });

  it('lists page by page in protobuf and patches (JSON patch bodies) through the same client', async () => {
    for (let i = 0; i < 5; i++) await client.create(builtin.configMaps, cm(`pb-list-${i}`, { i: String(i) }, { set: 'pb' }));
    const pages = [];
    for await (const page of client.listPages(builtin.configMaps, { namespace: 'default', labelSelector: 'set=pb', limit: 2 })) pages.push(page);
    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((p) => p.items.map((item) => (item as ConfigMap).data?.['i']))).toEqual(['0', '1', '2', '3', '4']);
    const patched = await client.patch(builtin.configMaps, 'pb-list-0', { data: { i: 'patched' } });
    expect(patched.data).toEqual({ i: 'patched' });
  });

  it('reads errors the server sends as protobuf Status', async () => {
    const error = await client.get(builtin.configMaps, 'absent').catch((e: unknown) => e);
    expect(isStatusError(error, 'NotFound')).toBe(true);
    expect(error).toMatchObject({ code: 404 });
  });

  it('follows a watch in length-prefixed protobuf frames', async () => {
    const events = new ReplaySubject<WatcherEvent<ConfigMap>>();
    const sub = client.watch$(builtin.configMaps, { namespace: 'default', labelSelector: 'set=pbw' }).subscribe(events);
    // Writes after the initial list has ended arrive as live watch events.
    await firstValueFrom(events.pipe(filter((e) => e.type === 'INIT_DONE')));
    await client.create(builtin.configMaps, cm('pbw', { v: '1' }, { set: 'pbw' }));
    await client.patch(builtin.configMaps, 'pbw', { data: { v: '2' } });
    await client.delete(builtin.configMaps, 'pbw');
    const live = await firstValueFrom(
      events.pipe(
        filter((e) => e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED'),
        take(3),
        toArray(),
      ),
    );
    sub.unsubscribe();
    expect(live.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(live.map((e) => ('object' in e ? e.object.data?.['v'] : undefined))).toEqual(['1', '2', '2']);
    expect(t.requests.some((url) => url.includes('watch=') && url.includes('set%3Dpbw'))).toBe(true);
  });

  it('reads metadata-only lists, which the server answers in JSON', async () => {
    const page = await client.list(builtin.configMaps, { namespace: 'default', labelSelector: 'set=pb', metadataOnly: true });
    expect(page.items.length).toBe(5);
    expect(page.items[0]).toMatchObject({ kind: 'PartialObjectMetadata' });
  });
});

describe('the protobuf client codec on its own', () => {
  const prefixed = encodeProtobuf(cm('unit') as never);

  it('rejects a reply that says protobuf but lacks the k8s\\0 prefix', () => {
    const bytes = new TextEncoder().encode('{"kind":"ConfigMap"}');
    expect(() => codec.decode(bytes, 'application/vnd.svc.protobuf')).toThrow(/magic prefix/);
    try {
      codec.decode(bytes, 'application/vnd.svc.protobuf');
    } catch (error) {
      expect(isStatusError(error, 'InternalError')).toBe(true);
    }
  });

  it('decodes JSON replies by their Content-Type', () => {
    expect(codec.decode(new TextEncoder().encode('{"a":1}'), 'application/json')).toEqual({ a: 1 });
    expect(codec.decode(prefixed, 'application/vnd.kubernetes.protobuf')).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'unit' } });
  });

  it('joins watch frames split at every byte, and several frames in one chunk', () => {
    const frames = ['ADDED', 'MODIFIED', 'DELETED'].map((type) => serverProtobuf.frame!(type, cm('f') as never));
    const all = Buffer.concat(frames.map((f) => Buffer.from(f)));
    const byteByByte = codec.watchFramer('application/vnd.svc.protobuf;stream=watch');
    const out: unknown[] = [];
    for (const byte of all) out.push(...byteByByte.push(Uint8Array.of(byte)));
    expect(out.map((e) => (e as { type: string }).type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    const whole = codec.watchFramer('application/vnd.svc.protobuf;stream=watch').push(all);
    expect(whole).toEqual(out);
  });

  it('refuses a frame that claims an absurd length instead of waiting for it', () => {
    const framer = codec.watchFramer('application/vnd.svc.protobuf;stream=watch');
    expect(() => framer.push(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 1, 2))).toThrow(/larger than/);
  });
});
