// Issue #21: a Widget controller restarted on a cluster already at its desired state made creates
// and deletes, because it reconciled before its owned ConfigMaps' cache had synced. Reconciles
// start only once the informers given as `for`, `owns` and `watches` have synced.
import { filter, firstValueFrom, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinTypes, ResourceRegistry, type KubeObject } from '../../src/api/index.js';
import { builtin, Informer } from '../../src/client/index.js';
import { controller, type ControllerResult } from '../../controllers/index.js';
import type { KeySource } from '../../operators/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { until } from '../client/support.js';
import { widgets, widgetType } from './widgets.js';

type Widget = KubeObject & { spec?: { replicas?: number } };
const NS = 'sync';
const BY_OWNER = 'byOwner';

describe('controller waits for its caches (virtual time)', () => {
  it('holds keys until every informer source has synced, then reconciles each once; plain sources count as synced', () => {
    const seen: boolean[] = [];
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ hot, expectObservable }) => {
      const obj = (name: string) => ({ type: 'added', object: { metadata: { name, namespace: 'ns' } } });
      const primary = { events$: hot('-a-b-a--------c', { a: obj('a'), b: obj('b'), c: obj('c') }), synced$: hot('t--------------', { t: true }) };
      const owned = { events$: hot<KeySource>('---------------'), synced$: hot('f-------t------', { f: false, t: true }) };
      const results = controller({
        name: 'gated',
        for: primary,
        owns: [{ events: owned, group: 'example.com', kind: 'Widget' }],
        watches: [hot('--k------------', { k: 'ns/k' })],
        reconcile: (_key, ctx) => void seen.push(ctx.synced()),
      });
      const result = (key: string) => ({ type: 'awaitChange', key, item: key, attempts: 1, controller: 'gated' });
      // Held keys go in the order first seen (a, k, b), each once.
      expectObservable(results).toBe('--------(akb)-c', { a: result('ns/a'), b: result('ns/b'), k: result('ns/k'), c: result('ns/c') });
    });
    expect(seen).toEqual([true, true, true, true]);
  });
});

describe('a Widget controller restarted at its desired state', () => {
  let t: TestCluster;
  beforeAll(async () => {
    t = await startTestCluster({ registry: new ResourceRegistry([...builtinTypes, widgetType()]), namespaces: [NS] });
  });
  afterAll(() => t.stop());

  it('writes nothing: it reconciles only once the owned ConfigMaps are in its cache', async () => {
    // The desired state: each Widget owns `spec.replicas` ConfigMaps with generated names.
    for (const name of ['w1', 'w2', 'w3']) {
      const widget = (await t.client.create(widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: NS }, spec: { replicas: 3 } } as never)) as Widget;
      for (let i = 0; i < 3; i++) await t.client.create(builtin.configMaps, owned(widget), { namespace: NS });
    }
    const before = await t.store.revision();

    const widgetInformer = new Informer<Widget>(t.client, widgets as never, { namespace: NS });
    // The ConfigMaps' client is held back until the Widgets' cache is filled: a controller that
    // does not wait reconciles against an empty ConfigMap cache (on a real cluster: a slower list).
    const held = firstValueFrom(widgetInformer.synced$.pipe(filter(Boolean))).then(() => new Promise((resolve) => setTimeout(resolve, 50)));
    const slow = t.newClient({ throttle: () => held.then(() => undefined) });
    const configMaps = new Informer(slow, builtin.configMaps, { namespace: NS, indexers: { [BY_OWNER]: ownerUids } });

    const unsynced: string[] = [];
    const reconciled = new Set<string>();
    const results: ControllerResult[] = [];
    const run: Subscription = controller({
      name: 'widgets',
      for: widgetInformer,
      owns: [{ events: configMaps, group: 'example.com', kind: 'Widget' }],
      concurrency: 4,
      reconcile: async (key, ctx) => {
        if (!configMaps.hasSynced() || !ctx.synced()) unsynced.push(key);
        const widget = widgetInformer.store.get(key);
        if (widget) await keepReplicas(widget, configMaps.store.byIndex(BY_OWNER, widget.metadata.uid!));
        reconciled.add(key);
      },
    }).subscribe((r) => results.push(r));
    try {
      await until(() => reconciled.size === 3, 'each Widget to be reconciled');
      expect(unsynced).toEqual([]);
      expect(results.filter((r) => r.type !== 'awaitChange')).toEqual([]);
      expect(await t.store.revision()).toBe(before); // no create, no delete
    } finally {
      run.unsubscribe();
      widgetInformer.stop();
      configMaps.stop();
    }
  });

  const owned = (widget: Widget) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      generateName: `${widget.metadata.name}-`,
      namespace: NS,
      ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: widget.metadata.name!, uid: widget.metadata.uid!, controller: true }],
    },
    data: { widget: widget.metadata.name! },
  });

  /** The new user's reconcile: create or delete ConfigMaps until the Widget owns `spec.replicas`. */
  async function keepReplicas(widget: Widget, have: readonly KubeObject[]): Promise<void> {
    const want = widget.spec?.replicas ?? 0;
    for (let i = have.length; i < want; i++) await t.client.create(builtin.configMaps, owned(widget) as never, { namespace: NS });
    for (const extra of have.slice(want)) await t.client.delete(builtin.configMaps, extra.metadata.name!, { namespace: NS });
  }
});

const ownerUids = (object: KubeObject): string[] => (object.metadata.ownerReferences ?? []).filter((r) => r.controller).map((r) => r.uid);
