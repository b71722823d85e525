import { Subject, asyncScheduler, firstValueFrom, filter, take, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/api/index.js';
import { builtin, Informer } from '../../src/client/index.js';
import { controller, type ControllerResult, type ReconcileStart } from '../../controllers/index.js';
import { generationChanged, requeueAfter, toKey } from '../../operators/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';

const obj = (name: string, owner?: string) => ({
  metadata: { name, namespace: 'ns', ...(owner ? { ownerReferences: [{ kind: 'Parent', name: owner, apiVersion: 'v1', uid: 'u', controller: true }] } : {}) },
});

describe('controller (virtual time)', () => {
  it('reconciles the keys of primary objects, of owned objects mapped to their owner, and of other triggers', () => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, hot, expectObservable }) => {
      const primary = hot('-a---b---|', { a: { object: obj('a') }, b: { object: obj('b') } });
      const owned = hot('---x-----|', { x: { object: obj('x', 'b') } });
      const other = cold('------k--|', { k: 'ns/c' });
      const results = controller({ name: 'test', for: primary, owns: [{ events: owned, group: '', kind: 'Parent' }], watches: [other], reconcile: () => undefined });
      expectObservable(results).toBe('-a-b-bc--|', {
        a: { type: 'awaitChange', key: 'ns/a', item: 'ns/a', attempts: 1, controller: 'test' },
        b: { type: 'awaitChange', key: 'ns/b', item: 'ns/b', attempts: 1, controller: 'test' },
        c: { type: 'awaitChange', key: 'ns/c', item: 'ns/c', attempts: 1, controller: 'test' },
      });
    });
  });
});

describe('controller onReconcileStart (virtual time)', () => {
  it("reports each start with the trigger that made its key due: the first of coalesced ones, one that came during a run, none for a requeue", () => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ hot, cold, flush }) => {
      const a1 = { type: 'MODIFIED', object: obj('a') };
      const a2 = { type: 'MODIFIED', object: obj('a') };
      const a3 = { type: 'MODIFIED', object: obj('a') };
      const x = { type: 'MODIFIED', object: obj('x', 'b') };
      // One worker; a run takes 4 frames. b runs at 1; a1 (3) and a2 (4) wait and coalesce into
      // a's run at 5 (a1 is its trigger); x (owned by b, 4) came during b's run and starts b again
      // at 9; a3 came during a's run (6) and starts a again at 13. The watches source's key `ns/w`
      // (12) waits for that run, then requeues itself: its second run has no trigger.
      const primary = hot('-b-pq-r---------', { b: { type: 'ADDED', object: obj('b') }, p: a1, q: a2, r: a3 });
      const owned = hot('  ----x-----------', { x });
      const other = hot('  ------------w---', { w: 'ns/w' });
      const starts: ReconcileStart[] = [];
      let requeued = false;
      controller({
        name: 'traced',
        for: primary,
        owns: [{ events: owned, group: '', kind: 'Parent' }],
        watches: [other],
        scheduler: asyncScheduler, // virtual inside TestScheduler.run
        onReconcileStart: (start) => starts.push(start),
        reconcile: (key) => {
          if (key === 'ns/w' && !requeued) {
            requeued = true;
            return requeueAfter(2);
          }
          return cold('----(x|)', { x: undefined });
        },
      }).subscribe();
      flush();
      expect(starts.map((s) => [s.key, s.trigger, s.triggeredAt, s.startedAt])).toEqual([
        ['ns/b', { type: 'ADDED', object: obj('b') }, 1, 1],
        ['ns/a', a1, 3, 5],
        ['ns/b', x, 4, 9],
        ['ns/a', a3, 6, 13],
        ['ns/w', 'ns/w', 12, 17],
        ['ns/w', undefined, undefined, 19],
      ]);
      expect(starts.every((s) => s.controller === 'traced')).toBe(true);
    });
  });
});

describe('controller shutdown (virtual time)', () => {
  it('stops taking triggers on stop$, lets running work finish, and cuts work still running after the drain timeout', () => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const primary = hot('-a-b---------', { a: { object: obj('a') }, b: { object: obj('b') } });
      const stop$ = hot('  ---s---------');
      // a's reconcile takes 3 frames; b's never ends: the drain (5 frames) cuts it.
      const slowA = cold('---(x|)', { x: undefined });
      const never = cold<undefined>('-');
      const results = controller({
        name: 'drain',
        for: primary,
        stop$,
        drainTimeoutMs: 5,
        concurrency: 2,
        reconcile: (key) => (key === 'ns/a' ? slowA : never),
      });
      expectObservable(results).toBe('----a---|', { a: { type: 'awaitChange', key: 'ns/a', item: 'ns/a', attempts: 1, controller: 'drain' } });
      expectSubscriptions(never.subscriptions).toBe('---^----!');
    });
  });
});

describe('controller against svc-apiserver', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({ namespaces: ['ctl'] });
  });
  afterAll(() => cluster.stop());

  it('filters an informer\'s events with generationChanged: a status write is dropped, a spec change kept (issue #21)', async () => {
    const { client } = cluster;
    const deployments = new Informer(client, builtin.deployments, { namespace: 'ctl' });
    const kept: string[] = [];
    // The predicates take the informer's events as they are: this line is the compile check too.
    const sub = deployments.events$.pipe(generationChanged()).subscribe((e) => kept.push(`${e.type} ${e.object.metadata.generation}`));
    const keys: string[] = [];
    const keySub = deployments.events$.pipe(generationChanged(), toKey()).subscribe((k) => keys.push(k));
    await deployments.waitForSync();
    const labels = { app: 'gen' };
    const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'gen', namespace: 'ctl' }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } };
    await client.create(builtin.deployments, dep);
    await client.patchStatus(builtin.deployments, 'gen', { status: { replicas: 1 } }, { namespace: 'ctl', type: 'merge' });
    const specChanged = await client.patch(builtin.deployments, 'gen', { spec: { replicas: 2 } }, { namespace: 'ctl', type: 'merge' });
    await firstValueFrom(deployments.events$.pipe(filter((e) => e.object.metadata.resourceVersion === specChanged.metadata.resourceVersion)));
    sub.unsubscribe();
    keySub.unsubscribe();
    deployments.stop();
    expect(kept).toEqual(['added 1', 'updated 2']);
    expect(keys).toEqual(['ctl/gen', 'ctl/gen']);
  });

  it('keeps a Secret per ConfigMap, recreating it when it is deleted, and drains on stop', async () => {
    const { client } = cluster;
    const configMaps = new Informer(client, builtin.configMaps, { namespace: 'ctl' });
    const secrets = new Informer(client, builtin.secrets, { namespace: 'ctl' });
    const stop$ = new Subject<void>();
    const results$ = new Subject<ControllerResult>();
    const reconciles = controller({
      name: 'configmap-secrets',
      for: configMaps,
      owns: [{ events: secrets, group: '', kind: 'ConfigMap' }],
      stop$,
      reconcile: async (key) => {
        const [namespace, name] = key.split('/') as [string, string];
        const owner = configMaps.store.get(key);
        if (!owner || secrets.store.get(key)) return;
        try {
          await client.create(builtin.secrets, {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name, namespace, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: owner.metadata.uid!, controller: true }] },
            stringData: { from: name },
          } as never);
        } catch (error) {
          if (!isStatusError(error, 'AlreadyExists')) throw error;
        }
      },
    });
    const done = firstValueFrom(results$.pipe(toArray()));
    reconciles.subscribe(results$);

    const secretOtherThan = (name: string, uid?: string) =>
      firstValueFrom(secrets.events$.pipe(filter((e) => e.type !== 'deleted' && e.object.metadata.name === name && e.object.metadata.uid !== uid), take(1)));
    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'ctl' }, data: { a: 'b' } } as never);
    const first = await secretOtherThan('one');
    await client.delete(builtin.secrets, 'one', { namespace: 'ctl' });
    // The deletion of the owned Secret triggers its owner's key: the controller creates a new one.
    const second = await secretOtherThan('one', first.object.metadata.uid);
    expect(second.object.metadata.ownerReferences?.[0]?.name).toBe('one');

    stop$.next();
    const results = await done;
    expect(results.every((r) => r.controller === 'configmap-secrets')).toBe(true);
    expect(results.filter((r) => r.type === 'terminal')).toEqual([]);
    configMaps.stop();
    secrets.stop();
  });
});
