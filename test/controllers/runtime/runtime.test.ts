// The controller runtime (controllers/runtime): named loops on one Lease, a shared informer
// factory, the bounded drain, the awaited release, Events per loop, and the secure port —
// against a real svc-apiserver over HTTPS. No timings are asserted: states, with bounded polls.
import { NEVER, Subject } from 'rxjs';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controller, runControllers, type ControllerRuntime, type ControlLoop } from '../../../controllers/index.js';
import type { CoreEvent } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import { eventually, startCluster, type Cluster } from '../manager/support.js';

// Hand-overs here happen by release, never by expiry: a long lease keeps a loaded machine from
// turning a slow renewal into a lost Lease, and a short retry lets a standby see the release soon.
const FAST = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 200 };

/** A loop that copies each ConfigMap `<name>` of `namespace` (not a copy itself) to `<name>-<suffix>`. */
const copier = (namespace: string, suffix: string): ControlLoop => (ctx) => {
  const configMaps = ctx.informers.informer(builtin.configMaps, { namespace });
  return controller({
    ...ctx.controllerDefaults(),
    name: ctx.name,
    for: configMaps,
    reconcile: async (key) => {
      const source = configMaps.store.get(key);
      if (!source || /-(a|b)$/.test(source.metadata.name!) || configMaps.store.get(`${key}-${suffix}`)) return;
      await ctx.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${source.metadata.name}-${suffix}`, namespace }, data: source.data ?? {} });
      ctx.events.record({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: source.metadata.name!, uid: source.metadata.uid }, 'Normal', 'Copied', `copied to ${source.metadata.name}-${suffix}`);
    },
  });
};

describe('runControllers', () => {
  let cluster: Cluster;
  let client: Client;
  const started: ControllerRuntime[] = [];
  const run = async (...args: Parameters<typeof runControllers>) => {
    const runtime = await runControllers(...args);
    started.push(runtime);
    return runtime;
  };
  const leases = async (namespace: string) => (await client.list(builtin.leases, { namespace })).items;
  const holder = async (namespace: string, name: string) => (await client.get(builtin.leases, name, { namespace }).catch(() => undefined))?.spec?.holderIdentity || undefined;
  const ns = async (name: string) => {
    await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    return name;
  };

  beforeAll(async () => {
    cluster = await startCluster();
    client = cluster.client;
  });
  afterAll(async () => {
    await Promise.all(started.map((r) => r.close()));
    await cluster.close();
  });

  it('runs every named loop on ONE Lease, hands each an Event recorder named after it, and releases the Lease on close (awaited)', async () => {
    const namespace = await ns('rt-one-lease');
    const runtime = await run({
      name: 'copiers',
      client,
      controllers: { 'copy-a': copier(namespace, 'a'), 'copy-b': copier(namespace, 'b') },
      election: { lease: { namespace, name: 'copiers' }, ...FAST },
      signals: false,
    });
    await runtime.firstTerm;
    expect(runtime.running).toEqual(['copy-a', 'copy-b']);
    expect((await leases(namespace)).map((l) => [l.metadata.name, l.spec?.holderIdentity])).toEqual([['copiers', runtime.identity]]);

    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'src', namespace }, data: { k: 'v' } });
    await eventually(async () => (await client.list(builtin.configMaps, { namespace })).items.filter((c) => c.metadata.name?.startsWith('src-')).length === 2, 'both loops to copy');
    const events = async () => (await client.list(builtin.coreEvents, { namespace })).items as CoreEvent[];
    await eventually(async () => (await events()).length === 2, 'an Event from each loop');
    expect((await events()).map((e) => [e.reportingComponent, e.source?.component, e.reason]).sort()).toEqual([
      ['copy-a', 'copy-a', 'Copied'],
      ['copy-b', 'copy-b', 'Copied'],
    ]);

    await runtime.close();
    expect(runtime.leading()).toBe(false);
    expect(await holder(namespace, 'copiers')).toBeUndefined(); // released before close() resolved
    await runtime.done;
  });

  it('a second process on the same Lease waits, then takes over at once when the leader stops', async () => {
    const namespace = await ns('rt-standby');
    const options = { name: 'pair', client, controllers: { 'copy-a': copier(namespace, 'a') }, election: { lease: { namespace, name: 'pair' }, ...FAST }, signals: false } as const;
    const first = await run(options);
    await first.firstTerm;
    const second = await run(options);
    expect(await holder(namespace, 'pair')).toBe(first.identity);
    expect(second.leading()).toBe(false);
    expect(second.synced()).toBe(false);
    await first.close();
    await second.firstTerm;
    expect(await holder(namespace, 'pair')).toBe(second.identity);
    expect(await leases(namespace)).toHaveLength(1);
    await second.close();
  });

  it('bounds the drain: a reconcile that never ends is cut after drainTimeoutMs, and the Lease is still released', async () => {
    const namespace = await ns('rt-drain');
    const entered = new Subject<string>();
    let reconciling = 0;
    const stuck: ControlLoop = (ctx) =>
      controller({
        ...ctx.controllerDefaults(),
        name: ctx.name,
        for: ctx.informers.informer(builtin.configMaps, { namespace }),
        reconcile: async (key) => {
          reconciling++;
          entered.next(key);
          await new Promise<never>(() => undefined); // hangs: ignores stop$
        },
      });
    const runtime = await run({ name: 'stuck', client, controllers: { stuck }, election: { lease: { namespace, name: 'stuck' }, ...FAST }, drainTimeoutMs: 200, signals: false });
    await runtime.firstTerm;
    const inReconcile = new Promise<string>((resolve) => entered.subscribe(resolve));
    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace } });
    expect(await inReconcile).toBe(`${namespace}/x`);
    await runtime.close(); // resolves although the reconcile never does
    expect(reconciling).toBe(1);
    expect(await holder(namespace, 'stuck')).toBeUndefined();
  });

  it('lets a reconcile in flight finish before releasing (the drain), when it ends within the bound', async () => {
    const namespace = await ns('rt-drain-ok');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const finished: string[] = [];
    const entered = new Subject<void>();
    const slow: ControlLoop = (ctx) =>
      controller({
        ...ctx.controllerDefaults(),
        name: ctx.name,
        for: ctx.informers.informer(builtin.configMaps, { namespace }),
        reconcile: async (key) => {
          entered.next();
          await gate;
          finished.push(key);
        },
      });
    const runtime = await run({ name: 'slow', client, controllers: { slow }, election: false, drainTimeoutMs: 60_000, signals: false });
    const inReconcile = new Promise<void>((resolve) => entered.subscribe(() => resolve()));
    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y', namespace } });
    await inReconcile;
    const closing = runtime.close();
    release();
    await closing;
    expect(finished).toEqual([`${namespace}/y`]);
  });

  it('serves /healthz, /livez, /readyz (ready once the caches synced) and /metrics over HTTPS', async () => {
    const namespace = await ns('rt-serving');
    const agent = new Agent({ connect: { rejectUnauthorized: false } }); // the default self-signed pair
    const get = async (runtime: ControllerRuntime, path: string) => {
      const res = await request(`${runtime.serving!.url}${path}`, { dispatcher: agent });
      return { status: res.statusCode, text: await res.body.text() };
    };
    try {
      // A loop whose informer can never sync (no such resource): live and healthy, never ready.
      const never: ControlLoop = (ctx) =>
        controller({ ...ctx.controllerDefaults(), name: ctx.name, for: ctx.informers.informer({ group: 'example.com', version: 'v1', resource: 'nothings', namespaced: true }), reconcile: async () => undefined });
      const unsynced = await run({ name: 'unsynced', client, controllers: { never }, election: false, serving: { port: 0, bindAddress: '127.0.0.1' }, signals: false });
      expect(await get(unsynced, '/livez')).toEqual({ status: 200, text: 'ok' });
      expect(await get(unsynced, '/healthz')).toEqual({ status: 200, text: 'ok' });
      const notReady = await get(unsynced, '/readyz?verbose');
      expect(notReady.status).toBe(500);
      expect(notReady.text).toContain('[-]informer-sync failed');
      await unsynced.close();

      const runtime = await run({
        name: 'served',
        client,
        controllers: { 'copy-a': copier(namespace, 'a') },
        election: { lease: { namespace, name: 'served' }, ...FAST },
        serving: { port: 0, bindAddress: '127.0.0.1' },
        signals: false,
      });
      await runtime.firstTerm;
      await eventually(() => runtime.synced(), 'the caches to sync');
      const ready = await get(runtime, '/readyz?verbose');
      expect(ready.status).toBe(200);
      expect(ready.text).toContain('[+]informer-sync ok');
      expect((await get(runtime, '/healthz?verbose')).text).toContain('[+]leader-election ok');
      await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm', namespace } });
      await eventually(async () => (await client.list(builtin.configMaps, { namespace })).items.some((c) => c.metadata.name === 'm-a'), 'the copy');
      const metrics = await get(runtime, '/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.text).toContain('leader_election_master_status{name="served"} 1');
      expect(metrics.text).toMatch(/workqueue_adds_total\{name="copy-a"\} [1-9]/);
      // Only health and metrics are open by default.
      expect((await get(runtime, '/debug/pprof/')).status).toBe(403);
      await runtime.close();
    } finally {
      await agent.close();
    }
  });

  it('a loop that fails is reported on /healthz and the others keep running', async () => {
    const namespace = await ns('rt-failed');
    const agent = new Agent({ connect: { rejectUnauthorized: false } });
    try {
      const broken: ControlLoop = () => {
        throw new Error('cannot start');
      };
      const idle: ControlLoop = () => NEVER;
      const runtime = await run({ name: 'failing', client, controllers: { broken, idle }, election: { lease: { namespace, name: 'failing' }, ...FAST }, drainTimeoutMs: 100, serving: { port: 0, bindAddress: '127.0.0.1' }, signals: false });
      await runtime.firstTerm;
      const res = await request(`${runtime.serving!.url}/healthz`, { dispatcher: agent });
      expect(res.statusCode).toBe(500);
      expect(await res.body.text()).toContain('[-]controllers failed: broken: failed to start: cannot start');
      expect(runtime.leading()).toBe(true);
      await runtime.close();
    } finally {
      await agent.close();
    }
  });
});
