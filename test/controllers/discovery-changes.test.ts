import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinTypes, ResourceRegistry } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { garbageCollector, namespaceController } from '../../controllers/index.js';
import { startTestServer, TOKEN, type TestServer } from '../apiserver/harness.js';
import { discoveryProxy, type DiscoveryProxy } from './proxy.js';
import { eventually, isGone, loopHarness, type LoopHarness } from './support.js';
import { widgets, widgetType as makeWidgetType } from './widgets.js';

const widgetType = makeWidgetType();
const widget = (name: string, namespace: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace, ...extra } });

// The controllers talk to the server through a proxy that changes what discovery says.
describe('control loops as discovery changes', () => {
  let server: TestServer;
  let proxy: DiscoveryProxy;
  let direct: Client;
  let loop: LoopHarness;

  beforeAll(async () => {
    server = await startTestServer('memory', { listen: true, registry: new ResourceRegistry([...builtinTypes, widgetType]) });
    proxy = await discoveryProxy(server.url!);
    proxy.hidden.add('example.com');
    direct = new Client({ server: server.url!, token: TOKEN });
    const viaProxy = new Client({ server: proxy.url, token: TOKEN });
    loop = loopHarness(viaProxy, { refreshPeriodMs: 100 });
    loop.run(namespaceController(loop.ctx, { concurrency: 2, resyncPeriodMs: 0, contentRecheckMs: 100 }));
    loop.run(garbageCollector(loop.ctx, { concurrency: 4 }));
  });
  afterAll(async () => {
    loop.stop();
    await loop.ctx.client.destroy();
    await direct.destroy();
    await proxy.close();
    await server.close();
  });

  it('the garbage collector watches a type discovery finds later, and collects its objects', async () => {
    const owner = await direct.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'widget-owner', namespace: 'default' } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'widget-owner', uid: owner.metadata.uid! };
    await direct.create(widgets, widget('w1', 'default', { ownerReferences: [ref] }));
    await direct.delete(builtin.configMaps, 'widget-owner');
    // Not served as far as the collector knows: the widget keeps its dangling reference.
    expect((await direct.get(widgets, 'w1', { namespace: 'default' })).metadata.uid).toBeDefined();

    proxy.hidden.delete('example.com');
    await eventually(() => isGone(direct.get(widgets, 'w1', { namespace: 'default' })), 'the widget to be collected once its type is discovered');
  });

  it('the namespace controller reports a discovery failure, keeps the namespace, and finishes once discovery heals', async () => {
    await direct.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'partial' } });
    await direct.create(widgets, widget('w', 'partial'));
    await direct.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'partial' } });
    proxy.failing.add('/apis/example.com/v1');
    await direct.delete(builtin.namespaces, 'partial');

    const condition = async (type: string) => (await direct.get(builtin.namespaces, 'partial')).status?.conditions?.find((c) => c.type === type);
    await eventually(async () => (await condition('NamespaceDeletionDiscoveryFailure'))?.status === 'True', 'the discovery failure condition');
    expect(await condition('NamespaceDeletionDiscoveryFailure')).toMatchObject({ reason: 'DiscoveryFailed', message: expect.stringContaining('example.com/v1') });
    // What was discovered is deleted; what was not is still there, and so is the namespace.
    await eventually(() => isGone(direct.get(builtin.configMaps, 'c', { namespace: 'partial' })), 'the config map to go');
    expect((await direct.get(widgets, 'w', { namespace: 'partial' })).metadata.deletionTimestamp).toBeUndefined();
    expect((await direct.get(builtin.namespaces, 'partial')).spec?.finalizers).toContain('kubernetes');

    proxy.failing.delete('/apis/example.com/v1');
    await eventually(() => isGone(direct.get(builtin.namespaces, 'partial')), 'the namespace to go once discovery heals');
    expect(await isGone(direct.get(widgets, 'w', { namespace: 'partial' }))).toBe(true);
  });
});
