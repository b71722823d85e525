// The test kit's cluster: an API server in-process on a memory store over HTTPS with a real
// token, a client of it, the controller manager's loops when asked, and a clean awaited stop.
import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { ROOT_CA_CONFIGMAP } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { Widget } from '../controllers/widgets.js';
import { eventually } from '../controllers/support.js';

describe('startTestCluster', () => {
  it('serves over HTTPS with its own certificate and answers only its token', async () => {
    await using cluster = await startTestCluster({ namespaces: ['demo'] });
    expect(cluster.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const made = await cluster.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'demo' }, data: { k: 'v' } });
    expect(made.metadata.uid).toBeDefined();
    expect((await cluster.client.get(builtin.namespaces, 'demo')).status?.phase).toBe('Active');

    const wrongToken = new Client({ server: cluster.url, token: 'not-the-token', caData: cluster.caPem });
    await expect(wrongToken.get(builtin.configMaps, 'a', { namespace: 'demo' })).rejects.toMatchObject({ code: 401 });
    await wrongToken.destroy();
    // Without the certificate, the client refuses the server (real TLS, no skipping).
    const untrusting = new Client({ server: cluster.url, token: cluster.token });
    await expect(untrusting.get(builtin.configMaps, 'a', { namespace: 'demo' })).rejects.toThrow();
    await untrusting.destroy();
  });

  it('counts the writes the server answered, per client', async () => {
    await using cluster = await startTestCluster();
    const writer = cluster.newClient({ userAgent: 'writer' });
    await writer.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } });
    await writer.patch(builtin.configMaps, 'a', { data: { k: 'v' } }, { namespace: 'default' });
    await cluster.client.list(builtin.configMaps, { namespace: 'default' });
    expect(cluster.writes('writer')).toBe(2);
    expect(cluster.writes('someone else')).toBe(0);
  });

  it("refuses the reads asked for with a 429 Status, then serves them; another agent's reads pass", async () => {
    await using cluster = await startTestCluster();
    const reader = cluster.newClient({ userAgent: 'reader' });
    await cluster.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } });
    const refusal = cluster.refuseReads('reader', (path) => path.startsWith('/api/v1/namespaces/default/configmaps/a'));
    await cluster.client.get(builtin.configMaps, 'a', { namespace: 'default' });
    await reader.list(builtin.configMaps, { namespace: 'default' });
    const error = await reader.get(builtin.configMaps, 'a', { namespace: 'default' }).catch((e: unknown) => e);
    expect(isStatusError(error, 'TooManyRequests')).toBe(true);
    expect(error).toMatchObject({ code: 429 });
    expect(refusal.refused()).toBe(1);
    expect((await reader.get(builtin.configMaps, 'a', { namespace: 'default' })).metadata.name).toBe('a');
    expect(refusal.refused()).toBe(1);
  });

  it('stops once, however often asked, and refuses connections afterwards', async () => {
    const cluster = await startTestCluster();
    await cluster.client.list(builtin.namespaces);
    await Promise.all([cluster.stop(), cluster.stop(), cluster[Symbol.asyncDispose]()]);
    const after = new Client(cluster.connection);
    await expect(after.list(builtin.namespaces)).rejects.toThrow();
    await after.destroy();
  });

  it('defines custom resources and serves them before it is handed over', async () => {
    await using cluster = await startTestCluster({ customResources: [Widget], namespaces: ['w'] });
    const widget = await cluster.client.create(Widget.resource, { apiVersion: Widget.apiVersion, kind: Widget.kind, metadata: { name: 'one', namespace: 'w' }, spec: { replicas: 2 } });
    expect(widget.spec?.replicas).toBe(2);
    // The schema is enforced: a bad spec is a 422 and nothing is written.
    await expect(
      cluster.client.create(Widget.resource, { apiVersion: Widget.apiVersion, kind: Widget.kind, metadata: { name: 'bad', namespace: 'w' }, spec: { replicas: -1 } }),
    ).rejects.toSatisfy((error: unknown) => isStatusError(error, 'Invalid'));
  });
});

describe('startTestCluster with the controller manager', () => {
  let cluster: TestCluster | undefined;

  it('runs the loops asked for: the root CA publisher fills a new namespace', async () => {
    cluster = await startTestCluster({ controllers: { controllers: ['root-ca-certificate-publisher-controller'] } });
    expect(cluster.manager?.running).toEqual(['root-ca-certificate-publisher-controller']);
    await cluster.client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } });
    const ca = async () => {
      try {
        return (await cluster!.client.get(builtin.configMaps, ROOT_CA_CONFIGMAP, { namespace: 'fresh' })).data?.['ca.crt'];
      } catch {
        return undefined;
      }
    };
    await eventually(async () => (await ca()) === cluster!.caPem, 'kube-root-ca.crt in fresh');
    await cluster.stop();
    expect(cluster.manager?.leading()).toBe(false);
  });
});
