// What the manager's caches hold: objects without metadata.managedFields (no loop reads them, and
// they were a third or more of a pod's bytes), whatever the content type; a loop's write from a
// cached object sends none, and the server keeps the stored ones.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { controller, type ControlLoop } from '../../../controllers/index.js';
import { startControllerManager, type ControllerManagerOptions, type ControllerName, type LoopFactory } from '../../../controllers/manager/index.js';
import { builtin, loadSvcconfig } from '../../../src/client/index.js';
import { PROTOBUF_MEDIA_TYPE } from '../../../src/encoding/index.js';
import { eventually, startCluster, type Cluster } from './support.js';

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v: '1', kept: 'x' } });

describe('the manager’s caches', () => {
  let cluster: Cluster;
  beforeEach(async () => {
    cluster = await startCluster();
  });
  afterEach(async () => {
    await cluster.close();
  });

  async function options(loop: ControlLoop, contentType: string): Promise<ControllerManagerOptions> {
    const target = await loadSvcconfig(cluster.api.svcconfigPath);
    const name: ControllerName = 'namespace-controller';
    const factory: LoopFactory = () => loop;
    return {
      connection: { server: target.server, token: target.token, caData: target.caData },
      contentType,
      qps: 100,
      burst: 100,
      controllers: [name],
      loops: new Map([[name, factory]]),
      loopSettings: { concurrentNamespaceSyncs: 1, namespaceSyncPeriodMs: 0, concurrentGcSyncs: 1, minResyncPeriodMs: 0 },
      enableGarbageCollector: false,
      drainTimeoutMs: 20_000,
      startIntervalMs: 0,
    };
  }

  it.each([
    ['protobuf', PROTOBUF_MEDIA_TYPE],
    ['JSON', 'application/json'],
  ])('%s: hold no managedFields; a write from a cached object keeps the stored ones', async (_encoding, contentType) => {
    const seen: unknown[] = [];
    const loop: ControlLoop = (ctx) => {
      const configMaps = ctx.informers.informer(builtin.configMaps);
      return controller({
        ...ctx.controllerDefaults('namespace-controller'),
        name: 'namespace-controller',
        for: configMaps,
        reconcile: async (key) => {
          const cached = configMaps.store.get(key);
          if (!cached || cached.metadata.name !== 'watched') return;
          seen.push(cached.metadata.managedFields);
          if (cached.data?.['v'] === '1') await ctx.client.update(builtin.configMaps, { ...cached, data: { ...cached.data, v: '2' } });
        },
      });
    };
    const manager = await startControllerManager(await options(loop, contentType));
    try {
      const created = await cluster.client.create(builtin.configMaps, cm('watched'), { fieldManager: 'tests' });
      expect(created.metadata.managedFields?.map((entry) => entry.manager)).toEqual(['tests']);
      await eventually(async () => (await cluster.client.get(builtin.configMaps, 'watched')).data?.['v'] === '2', 'the loop’s update');
      await eventually(() => seen.length >= 2, 'the loop to see its own update');
      expect(seen.every((managedFields) => managedFields === undefined)).toBe(true);
      const stored = await cluster.client.get(builtin.configMaps, 'watched');
      const managers = stored.metadata.managedFields?.map((entry) => entry.manager) ?? [];
      // The creator keeps `data.kept`, the loop's manager owns `data.v` now.
      expect(managers).toContain('tests');
      expect(managers).toHaveLength(2);
    } finally {
      await manager.close();
    }
  });
});
