import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client, discoverResources, InformerFactory, supports } from '../../src/client/index.js';
import { startClientTestServer, type ClientTestServer } from './support.js';

describe('discoverResources against svc-apiserver', () => {
  let t: ClientTestServer;
  beforeAll(async () => {
    t = await startClientTestServer();
  });
  afterAll(() => t.close());

  it('lists every served type at its preferred version, with scope, kind and verbs, without subresources', async () => {
    const { resources, failures } = await discoverResources(t.client);
    expect(failures).toEqual([]);
    const pods = resources.find((r) => r.group === '' && r.resource === 'pods');
    expect(pods).toMatchObject({ version: 'v1', kind: 'Pod', namespaced: true });
    expect(supports(pods!, 'list', 'watch', 'delete', 'deletecollection')).toBe(true);
    expect(resources.find((r) => r.resource === 'namespaces')).toMatchObject({ namespaced: false, kind: 'Namespace' });
    expect(resources.find((r) => r.group === 'apps' && r.resource === 'deployments')).toMatchObject({ version: 'v1', kind: 'Deployment' });
    expect(resources.some((r) => r.resource.includes('/'))).toBe(false);
    // A discovered type addresses its objects as it is.
    expect((await t.client.list(pods!, { namespace: 'default' })).items).toEqual([]);
  });

  it('does not share a metadata-only informer with a full one', () => {
    const factory = new InformerFactory(t.client);
    const full = factory.informer(builtin.configMaps);
    const meta = factory.informer(builtin.configMaps, { metadataOnly: true });
    expect(meta).not.toBe(full);
    expect(factory.informer(builtin.configMaps, { metadataOnly: true })).toBe(meta);
  });
});

describe('discoverResources with a group that fails', () => {
  let server: Server;
  let client: Client;
  beforeAll(async () => {
    const docs: Record<string, unknown> = {
      '/api': { kind: 'APIVersions', versions: ['v1'] },
      '/apis': {
        kind: 'APIGroupList',
        groups: [
          { name: 'good.example', versions: [{ groupVersion: 'good.example/v2', version: 'v2' }, { groupVersion: 'good.example/v1', version: 'v1' }], preferredVersion: { version: 'v1' } },
          { name: 'broken.example', versions: [{ groupVersion: 'broken.example/v1', version: 'v1' }], preferredVersion: { version: 'v1' } },
        ],
      },
      '/api/v1': { kind: 'APIResourceList', resources: [{ name: 'pods', kind: 'Pod', namespaced: true, verbs: ['list'] }, { name: 'pods/status', kind: 'Pod', namespaced: true, verbs: ['get'] }] },
      '/apis/good.example/v1': { kind: 'APIResourceList', resources: [{ name: 'things', kind: 'Thing', namespaced: false, verbs: ['get', 'list'] }] },
    };
    server = createServer((req, res) => {
      const doc = docs[req.url ?? ''];
      if (doc) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'ServiceUnavailable', code: 503, message: 'down' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    client = new Client({ server: `http://127.0.0.1:${address.port}` });
  });
  afterAll(async () => {
    await client.destroy();
    server.close();
  });

  it('answers the groups it could read and names the ones it could not', async () => {
    const { resources, failures } = await discoverResources(client);
    expect(resources.map((r) => `${r.group}/${r.version}/${r.resource}`)).toEqual(['/v1/pods', 'good.example/v1/things']);
    expect(failures.map((f) => f.groupVersion)).toEqual(['broken.example/v1']);
    expect((failures[0]!.error as { code?: number }).code).toBe(503);
  });
});
