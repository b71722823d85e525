import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Informer, type Client } from '../../src/client/index.js';
import { cm, FAST, startClientTestServer, until, type ClientTestServer } from './support.js';

let t: ClientTestServer;
let client: Client;
beforeAll(async () => {
  t = await startClientTestServer();
  client = t.client;
  await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'meta' } });
});
afterAll(() => t.close());

describe('metadata-only reads', () => {
  it('lists PartialObjectMetadata: metadata without data', async () => {
    await client.create(builtin.configMaps, cm('listed', { secret: 'x'.repeat(100) }, { app: 'a' }), { namespace: 'meta' });
    const page = await client.list(builtin.configMaps, { namespace: 'meta', metadataOnly: true });
    const item = page.items.find((i) => i.metadata.name === 'listed') as unknown as Record<string, unknown>;
    expect(item['kind']).toBe('PartialObjectMetadata');
    expect(item['data']).toBeUndefined();
    expect((item['metadata'] as { labels: unknown }).labels).toEqual({ app: 'a' });
  });

  it('keeps an informer of metadata only, following changes through the watch', async () => {
    const inf = new Informer(client, builtin.configMaps, { namespace: 'meta', metadataOnly: true, ...FAST });
    const seen: string[] = [];
    const sub = inf.events$.subscribe((e) => seen.push(`${e.type} ${e.object.metadata.name} ${JSON.stringify(e.object.metadata.labels ?? {})}`));
    await inf.waitForSync();
    await client.create(builtin.configMaps, cm('watched', { big: 'y'.repeat(1000) }, { tier: 'one' }), { namespace: 'meta' });
    await client.patch(builtin.configMaps, 'watched', { metadata: { labels: { tier: 'two' } } }, { namespace: 'meta' });
    await until(() => seen.includes('updated watched {"tier":"two"}'), 'the label change');
    const cached = inf.store.get('meta/watched') as unknown as Record<string, unknown>;
    expect(cached['data']).toBeUndefined();
    expect(cached['kind']).toBe('PartialObjectMetadata');
    expect(seen).toContain('added watched {"tier":"one"}');
    sub.unsubscribe();
    inf.stop();
  });
});
