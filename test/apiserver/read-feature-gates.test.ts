import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

const CM = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value } });

describe('feature gates of the read path', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('ListFromCacheSnapshot=false still answers Exact and continued lists exactly, from the store', async () => {
    s = await startTestServer('sqlite', { featureGates: { ListFromCacheSnapshot: false } });
    for (const name of ['a', 'b', 'c']) expect((await s.call('POST', CM, cm(name, '1'))).status).toBe(201);
    const first = await s.call('GET', `${CM}?limit=2`);
    const at = first.body.metadata.resourceVersion;
    const b = await s.call('GET', `${CM}/b`);
    expect((await s.call('PUT', `${CM}/b`, { ...b.body, data: { value: '2' } })).status).toBe(200);
    expect((await s.call('DELETE', `${CM}/c`)).status).toBe(200);
    const next = await s.call('GET', `${CM}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(next.body.metadata.resourceVersion).toBe(at);
    expect(next.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['c']);
    const exact = await s.call('GET', `${CM}?resourceVersion=${at}&resourceVersionMatch=Exact`);
    expect(exact.body.items.map((i: { data: { value: string } }) => i.data.value)).toEqual(['1', '1', '1']);
  });

  it('WatchList=false refuses sendInitialEvents with a 400 and serves plain watches', async () => {
    s = await startTestServer('memory', { featureGates: { WatchList: false }, listen: true });
    const refused = await s.call('GET', `${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(refused.body.message).toMatch(/WatchList/);
  });
});
