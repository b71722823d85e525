import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type BackendName, type TestServer } from './harness.js';

const CM = '/api/v1/namespaces/default/configmaps';

describe.each<BackendName>(['memory', 'sqlite'])('reading a corrupt object on the %s store', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(backend);
  });
  afterAll(async () => {
    await s.close();
  });

  it('answers a GET with an error that names it, and leaves it out of lists', async () => {
    await s.store.create(`${s.store.prefix}core/configmaps/default/broken`, new TextEncoder().encode('{"kind":"ConfigMap",'));
    const got = await s.call('GET', `${CM}/broken`);
    expect(got.status).toBe(500);
    expect(got.body).toMatchObject({ kind: 'Status', reason: 'StorageReadError', details: { name: 'broken', kind: 'configmaps' } });
    expect(got.body.message).toContain('/registry/core/configmaps/default/broken');
    const listed = await s.call('GET', CM);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).not.toContain('broken');
  });

  it('serves the object again once good bytes replace the bad ones', async () => {
    const key = `${s.store.prefix}core/configmaps/default/mended`;
    const bad = await s.store.create(key, new TextEncoder().encode('not json'));
    expect((await s.call('GET', `${CM}/mended`)).status).toBe(500);
    await s.store.update(key, new TextEncoder().encode('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"mended","namespace":"default"}}'), bad.modRevision);
    const got = await s.call('GET', `${CM}/mended`);
    expect(got.status).toBe(200);
    expect(got.body.metadata.name).toBe('mended');
  });
});
