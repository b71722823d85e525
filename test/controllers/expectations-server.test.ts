// Issue #21: a controller that creates objects reconciles again before its cache has seen them.
// Without expectations it counts what its cache shows (nothing yet) and creates duplicates; with
// them it waits until the informer has observed its creations, then goes on.
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinTypes, ResourceRegistry, type KubeObject } from '../../src/api/index.js';
import { builtin, Informer } from '../../src/client/index.js';
import { controller, controllerRef, Expectations, observeOwned } from '../../controllers/index.js';
import { startClientTestServer, until, type ClientTestServer } from '../client/support.js';
import { holdingProxy, type HoldingProxy } from './holding-proxy.js';
import { widgets, widgetType } from './widgets.js';

type Widget = KubeObject & { spec?: { replicas?: number } };
const NS = 'expect';
const WIDGET = { group: 'example.com', version: 'v1', kind: 'Widget' } as const;

describe('expectations against svc-apiserver', () => {
  let t: ClientTestServer;
  let proxy: HoldingProxy;
  beforeAll(async () => {
    t = await startClientTestServer({ registry: new ResourceRegistry([...builtinTypes, widgetType()]) });
    proxy = await holdingProxy(t.s.url!);
    expect((await t.s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).toBe(201);
  });
  afterAll(async () => {
    await proxy.close();
    await t.close();
  });

  it('a reconcile before the cache has seen its creations creates nothing more; once observed it proceeds', async () => {
    const widgetInformer = new Informer<Widget>(t.client, widgets as never, { namespace: NS });
    // The ConfigMaps' cache is fed through the proxy, so the test decides when it sees its events.
    const configMaps = new Informer(t.newClient({ server: proxy.url }), builtin.configMaps, { namespace: NS });
    const expectations = new Expectations();
    const skipped: string[] = [];
    const seen: number[] = [];
    let created = 0;
    const run: Subscription = controller({
      name: 'widgets',
      for: widgetInformer,
      owns: [{ events: configMaps, group: WIDGET.group, kind: WIDGET.kind }],
      watches: [observeOwned(expectations, configMaps, WIDGET)],
      reconcile: async (key) => {
        const widget = widgetInformer.store.get(key);
        if (!widget) return expectations.delete(key);
        if (!expectations.satisfied(key)) return void skipped.push(key);
        const have = configMaps.byOwner(widget.metadata.uid!);
        seen.push(have.length);
        const missing = (widget.spec?.replicas ?? 0) - have.length;
        if (missing <= 0) return;
        expectations.expectCreations(key, missing);
        for (let i = 0; i < missing; i++) {
          const child = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'w-', namespace: NS, ownerReferences: [controllerRef(widget, WIDGET)] } };
          await t.client.create(builtin.configMaps, child as never).catch((error: unknown) => {
            expectations.creationObserved(key);
            throw error;
          });
          created += 1;
        }
      },
    }).subscribe();
    const onServer = async () => (await t.client.list(builtin.configMaps, { namespace: NS, labelSelector: '' })).items.filter((c) => c.metadata.ownerReferences?.length).length;
    try {
      await Promise.all([widgetInformer.waitForSync(), configMaps.waitForSync()]);
      proxy.hold();
      const widget = (await t.client.create(widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: NS }, spec: { replicas: 3 } } as never)) as Widget;
      await until(() => seen.length === 1, 'the first reconcile');
      await until(() => !expectations.satisfied(`${NS}/w`) && expectations.pending(`${NS}/w`).creations === 3, 'three creations expected');
      await until(() => created === 3, 'the creates');
      expect(await onServer()).toBe(3);

      // A second reconcile while the cache still shows none of them: it must not count from the cache.
      await t.client.patch(widgets, 'w', { metadata: { annotations: { touched: '1' } } }, { namespace: NS });
      await until(() => skipped.length >= 1, 'the second reconcile');
      expect(configMaps.byOwner(widget.metadata.uid!)).toHaveLength(0); // a naive reconcile would create three more
      expect(seen).toEqual([0]);
      expect(await onServer()).toBe(3);

      // The cache catches up: the observations satisfy the expectation and trigger the key again.
      proxy.release();
      await until(() => seen.includes(3), 'a reconcile that sees the three');
      expect(expectations.satisfied(`${NS}/w`)).toBe(true);
      expect(await onServer()).toBe(3);

      // It proceeds: more replicas, more creations, still no duplicates.
      await t.client.patch(widgets, 'w', { spec: { replicas: 5 } }, { namespace: NS });
      await until(() => configMaps.byOwner(widget.metadata.uid!).length === 5 && expectations.satisfied(`${NS}/w`), 'five ConfigMaps observed');
      await until(() => seen.at(-1) === 5, 'a reconcile that sees the five');
      expect(await onServer()).toBe(5);
      expect(created).toBe(5);
    } finally {
      proxy.release();
      run.unsubscribe();
      widgetInformer.stop();
      configMaps.stop();
    }
  });
});
