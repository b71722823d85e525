// The StatefulSet controller against a real in-process API server (with the garbage collector, which
// acts on the claims' retention owners). No node runs the pods: the test marks them Running and
// Ready through their status, as a node agent would.
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod, StatefulSet } from '../../../src/api/index.js';
import { builtin, Client, Informer } from '../../../src/client/index.js';
import { garbageCollector, statefulSetController } from '../../../controllers/index.js';
import { pvcProtectionController } from '../../../controllers/pvc-protection/index.js';
import { startTestServer, TOKEN, type TestServer } from '../../apiserver/harness.js';
import { eventually, isGone, loopHarness, type LoopHarness } from '../support.js';
import { createNamespace, eventsAbout, isReady, livePods, readyAll, setPodReady, updateWith } from '../workload-support.js';

let server: TestServer;
let client: Client;
let loop: LoopHarness;
let gc: LoopHarness;
// The controller's clock: real time plus what a test adds (minReadySeconds without waiting).
let offsetMs = 0;
const clock = () => Date.now() + offsetMs;

beforeAll(async () => {
  server = await startTestServer('memory', { listen: true });
  client = new Client({ server: server.url!, token: TOKEN });
  loop = loopHarness(client);
  loop.run(statefulSetController(loop.ctx, { concurrency: 5, now: clock }));
  gc = loopHarness(client);
  gc.run(garbageCollector(gc.ctx, { concurrency: 5 }));
  // Claims are created with their protection finalizer (admission): the loop that removes it runs too.
  gc.run(pvcProtectionController(gc.ctx));
});
afterAll(async () => {
  loop.stop();
  gc.stop();
  await client.destroy();
  await server.close();
});

interface SetOptions {
  replicas?: number;
  policy?: 'OrderedReady' | 'Parallel';
  claims?: boolean;
  retention?: { whenDeleted: 'Retain' | 'Delete'; whenScaled: 'Retain' | 'Delete' };
  strategy?: unknown;
  start?: number;
  minReadySeconds?: number;
}

function statefulSet(name: string, namespace: string, o: SetOptions = {}): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace },
    spec: {
      replicas: o.replicas ?? 3,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      ...(o.policy ? { podManagementPolicy: o.policy } : {}),
      ...(o.strategy ? { updateStrategy: o.strategy } : {}),
      ...(o.retention ? { persistentVolumeClaimRetentionPolicy: o.retention } : {}),
      ...(o.start !== undefined ? { ordinals: { start: o.start } } : {}),
      ...(o.minReadySeconds !== undefined ? { minReadySeconds: o.minReadySeconds } : {}),
      ...(o.claims ? { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] } : {}),
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'busybox:1', ...(o.claims ? { volumeMounts: [{ name: 'data', mountPath: '/data' }] } : {}) }] },
      },
    },
  } as StatefulSet;
}

const names = async (namespace: string) => (await livePods(client, namespace)).map((p) => p.metadata.name!).sort();
const getSet = (name: string, namespace: string) => client.get(builtin.statefulSets, name, { namespace });
const claimNames = async (namespace: string) => (await client.list(builtin.persistentVolumeClaims, { namespace })).items.map((c) => c.metadata.name!).sort();
const setImage = (name: string, namespace: string, image: string, spec: Partial<StatefulSet['spec']> = {}) =>
  updateWith(client, builtin.statefulSets, name, namespace, (set) => {
    const template = { ...set.spec.template, spec: { ...set.spec.template.spec, containers: [{ name: 'c', image }] } };
    return { ...set, spec: { ...set.spec, ...spec, template } };
  });
const setSpec = (name: string, namespace: string, spec: Partial<StatefulSet['spec']>) => updateWith(client, builtin.statefulSets, name, namespace, (set) => ({ ...set, spec: { ...set.spec, ...spec } }));
const imageOf = (pod: Pod) => pod.spec.containers[0]!.image;

describe('statefulset controller', () => {
  it('OrderedReady: members one at a time, in order, each with its identity and claim; scale-down from the highest ordinal', async () => {
    const ns = 'sts-ordered';
    await createNamespace(client, ns);
    await client.create(builtin.statefulSets, statefulSet('web', ns, { claims: true }), { namespace: ns });
    await eventually(async () => (await names(ns)).join() === 'web-0', 'web-0 first');
    const [web0] = await livePods(client, ns);
    expect(web0!.spec.hostname).toBe('web-0');
    expect(web0!.spec.subdomain).toBe('web');
    expect(web0!.metadata.labels).toMatchObject({ app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-0', 'apps.kubernetes.io/pod-index': '0' });
    expect(web0!.metadata.labels?.['controller-revision-hash']).toMatch(/^web-[a-z0-9]+$/);
    expect(web0!.spec.volumes).toContainEqual({ name: 'data', persistentVolumeClaim: { claimName: 'data-web-0' } });
    expect(await claimNames(ns)).toEqual(['data-web-0']);
    const claim = await client.get(builtin.persistentVolumeClaims, 'data-web-0', { namespace: ns });
    expect(claim.metadata.labels).toEqual({ app: 'web' });
    // Retain/Retain (the default): no owner on the claim.
    expect(claim.metadata.ownerReferences).toBeUndefined();

    // Nothing more until web-0 is Running and Ready.
    await eventually(async () => (await getSet('web', ns)).status?.replicas === 1, 'status replicas 1');
    expect(await names(ns)).toEqual(['web-0']);
    await setPodReady(client, web0!);
    await eventually(async () => (await names(ns)).join() === 'web-0,web-1', 'web-1 after web-0 is ready');
    await eventually(async () => (await getSet('web', ns)).status?.replicas === 2, 'status replicas 2');
    expect(await names(ns)).toEqual(['web-0', 'web-1']);
    await readyAll(client, ns);
    await eventually(async () => (await names(ns)).join() === 'web-0,web-1,web-2', 'web-2');
    await readyAll(client, ns);
    await eventually(async () => {
      const s = (await getSet('web', ns)).status;
      return s?.readyReplicas === 3 && s.availableReplicas === 3 && s.currentReplicas === 3 && s.updatedReplicas === 3 && s.currentRevision === s.updateRevision && s.observedGeneration === 1;
    }, 'status 3 ready');
    expect(await claimNames(ns)).toEqual(['data-web-0', 'data-web-1', 'data-web-2']);

    // Scale to 1: web-2 goes before web-1.
    const deleted: string[] = [];
    const informer = new Informer(client, builtin.pods, { namespace: ns });
    const sub: Subscription = informer.events$.subscribe((e) => e.type === 'deleted' && deleted.push(e.object.metadata.name!));
    try {
      await setSpec('web', ns, { replicas: 1 });
      await eventually(() => deleted.length === 2, 'two members deleted');
      expect(deleted).toEqual(['web-2', 'web-1']);
    } finally {
      sub.unsubscribe();
      informer.stop();
    }
    // Retained claims stay.
    expect(await claimNames(ns)).toEqual(['data-web-0', 'data-web-1', 'data-web-2']);
    await eventually(async () => (await eventsAbout(client, ns, 'StatefulSet', 'web')).includes('SuccessfulDelete: delete Pod web-1 in StatefulSet web successful'), 'the delete event');
    const events = await eventsAbout(client, ns, 'StatefulSet', 'web');
    expect(events).toEqual(expect.arrayContaining(['SuccessfulCreate: create Pod web-0 in StatefulSet web successful', 'SuccessfulCreate: create Claim data-web-0 Pod web-0 in StatefulSet web success']));
  });

  it('OrderedReady waits for a member to be available (minReadySeconds) before the next', async () => {
    const ns = 'sts-minready';
    await createNamespace(client, ns);
    await client.create(builtin.statefulSets, statefulSet('mr', ns, { replicas: 2, minReadySeconds: 3600 }), { namespace: ns });
    await eventually(async () => (await names(ns)).join() === 'mr-0', 'mr-0');
    await readyAll(client, ns);
    await eventually(async () => {
      const s = (await getSet('mr', ns)).status;
      return s?.readyReplicas === 1 && s.availableReplicas === 0;
    }, 'ready, not available');
    expect(await names(ns)).toEqual(['mr-0']);
    // An hour later on the controller's clock, and a change to look again: available, and mr-1 follows.
    offsetMs = 3_600_000;
    await setSpec('mr', ns, { minReadySeconds: 3599 });
    await eventually(async () => (await names(ns)).join() === 'mr-0,mr-1', 'mr-1 once mr-0 is available');
    await eventually(async () => (await getSet('mr', ns)).status?.availableReplicas === 1, 'mr-0 available in status');
    // Left at rest whatever the clock says (the last test restarts the controller on a steady cluster).
    offsetMs = 0;
    await setSpec('mr', ns, { minReadySeconds: 0 });
    await eventually(async () => {
      await readyAll(client, ns);
      const s = (await getSet('mr', ns)).status;
      return s?.availableReplicas === 2 && s.observedGeneration === 3;
    }, 'both available');
  });

  it('Parallel: every member at once; ordinals.start names them', async () => {
    const ns = 'sts-parallel';
    await createNamespace(client, ns);
    await client.create(builtin.statefulSets, statefulSet('par', ns, { policy: 'Parallel', start: 5 }), { namespace: ns });
    await eventually(async () => (await names(ns)).join() === 'par-5,par-6,par-7', 'three members from ordinal 5 without readiness');
    const pods = await livePods(client, ns);
    expect(pods.map((p) => p.metadata.labels?.['apps.kubernetes.io/pod-index']).sort()).toEqual(['5', '6', '7']);
  });

  it('RollingUpdate with a partition updates only the ordinals at or above it, from the highest; then the rest', async () => {
    const ns = 'sts-partition';
    await createNamespace(client, ns);
    await client.create(builtin.statefulSets, statefulSet('pt', ns, { policy: 'Parallel' }), { namespace: ns });
    await eventually(async () => (await names(ns)).length === 3, 'three members');
    await readyAll(client, ns);
    await eventually(async () => (await getSet('pt', ns)).status?.readyReplicas === 3, 'three ready');
    const first = (await getSet('pt', ns)).status!.currentRevision;

    await setImage('pt', ns, 'busybox:2', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } });
    await eventually(async () => {
      await readyAll(client, ns);
      const pods = await livePods(client, ns);
      return pods.length === 3 && pods.find((p) => p.metadata.name === 'pt-2')?.spec.containers[0]!.image === 'busybox:2' && pods.every(isReady);
    }, 'pt-2 updated');
    const status = (await getSet('pt', ns)).status!;
    await eventually(async () => (await getSet('pt', ns)).status?.updatedReplicas === 1, 'one updated');
    expect(status.currentRevision).toBe(first);
    expect((await livePods(client, ns)).filter((p) => imageOf(p) === 'busybox:1').map((p) => p.metadata.name).sort()).toEqual(['pt-0', 'pt-1']);

    await setSpec('pt', ns, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } });
    await eventually(async () => {
      await readyAll(client, ns);
      const s = (await getSet('pt', ns)).status;
      return s?.updatedReplicas === 3 && s.readyReplicas === 3 && s.currentRevision === s.updateRevision && s.currentRevision !== first;
    }, 'every member updated, the update revision current');
    const revisions = (await client.list(builtin.controllerRevisions, { namespace: ns })).items;
    expect(revisions.map((r) => r.revision).sort()).toEqual([1, 2]);
    expect(revisions.every((r) => r.metadata.labels?.['controller.kubernetes.io/hash'] !== undefined)).toBe(true);
  });

  it('RollingUpdate with maxUnavailable 2 replaces two members at once and waits for them', async () => {
    const ns = 'sts-maxunavailable';
    await createNamespace(client, ns);
    await client.create(builtin.statefulSets, statefulSet('mu', ns, { policy: 'Parallel', strategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 2 } } }), { namespace: ns });
    await eventually(async () => (await names(ns)).length === 3, 'three members');
    await readyAll(client, ns);
    await eventually(async () => (await getSet('mu', ns)).status?.readyReplicas === 3, 'three ready');
    await setImage('mu', ns, 'busybox:2');
    await eventually(async () => {
      const pods = await livePods(client, ns);
      return pods.filter((p) => imageOf(p) === 'busybox:2').map((p) => p.metadata.name).sort().join() === 'mu-1,mu-2';
    }, 'mu-1 and mu-2 replaced together');
    await eventually(async () => (await getSet('mu', ns)).status?.updatedReplicas === 2, 'two updated in status');
    expect(imageOf((await livePods(client, ns)).find((p) => p.metadata.name === 'mu-0')!)).toBe('busybox:1');
    await eventually(async () => {
      await readyAll(client, ns);
      return (await livePods(client, ns)).every((p) => imageOf(p) === 'busybox:2');
    }, 'mu-0 replaced once the others are ready');
  });

  it('OnDelete: a member is replaced with the new template only when deleted', async () => {
    const ns = 'sts-ondelete';
    await createNamespace(client, ns);
    await client.create(builtin.statefulSets, statefulSet('od', ns, { replicas: 2, policy: 'Parallel', strategy: { type: 'OnDelete' } }), { namespace: ns });
    await eventually(async () => (await names(ns)).length === 2, 'two members');
    await readyAll(client, ns);
    await setImage('od', ns, 'busybox:2');
    await eventually(async () => (await getSet('od', ns)).status?.observedGeneration === 2, 'generation 2 observed');
    expect((await livePods(client, ns)).map(imageOf)).toEqual(['busybox:1', 'busybox:1']);
    await client.delete(builtin.pods, 'od-1', { namespace: ns });
    await eventually(async () => (await livePods(client, ns)).find((p) => p.metadata.name === 'od-1' && imageOf(p) === 'busybox:2') !== undefined, 'od-1 recreated new');
    expect(imageOf((await livePods(client, ns)).find((p) => p.metadata.name === 'od-0')!)).toBe('busybox:1');
  });

  it('claim retention Delete/Delete: a scaled-away member\'s claim goes with it, the others with the set', async () => {
    const ns = 'sts-retention';
    await createNamespace(client, ns);
    await client.create(builtin.statefulSets, statefulSet('db', ns, { replicas: 2, policy: 'Parallel', claims: true, retention: { whenDeleted: 'Delete', whenScaled: 'Delete' } }), { namespace: ns });
    await eventually(async () => (await claimNames(ns)).join() === 'data-db-0,data-db-1', 'two claims');
    const set = await getSet('db', ns);
    const owners = (await client.get(builtin.persistentVolumeClaims, 'data-db-0', { namespace: ns })).metadata.ownerReferences;
    expect(owners).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: set.metadata.uid }]);
    await readyAll(client, ns);
    await eventually(async () => (await getSet('db', ns)).status?.readyReplicas === 2, 'two ready');

    await setSpec('db', ns, { replicas: 1 });
    await eventually(async () => (await claimNames(ns)).join() === 'data-db-0', 'the scaled-away claim deleted with its pod');
    await client.delete(builtin.statefulSets, 'db', { namespace: ns });
    await eventually(() => isGone(client.get(builtin.persistentVolumeClaims, 'data-db-0', { namespace: ns })), 'the claim deleted with the set');
  });

  it('adopts an orphan pod named as a member and selected by the set', async () => {
    const ns = 'sts-adopt';
    await createNamespace(client, ns);
    const orphan = await client.create(
      builtin.pods,
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ad-0', namespace: ns, labels: { app: 'ad' } }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } } as Pod,
      { namespace: ns },
    );
    await client.create(builtin.statefulSets, statefulSet('ad', ns, { replicas: 1 }), { namespace: ns });
    await eventually(async () => (await client.get(builtin.pods, 'ad-0', { namespace: ns })).metadata.ownerReferences?.[0]?.name === 'ad', 'ad-0 adopted');
    // Its identity labels are put back on as a member's.
    await eventually(async () => (await client.get(builtin.pods, 'ad-0', { namespace: ns })).metadata.labels?.['apps.kubernetes.io/pod-index'] === '0', 'identity labels');
    expect((await client.get(builtin.pods, 'ad-0', { namespace: ns })).metadata.uid).toBe(orphan.metadata.uid);
  });

  it('a restarted controller at steady state writes nothing', async () => {
    const ns = 'sts-restart';
    await createNamespace(client, ns);
    await client.create(builtin.statefulSets, statefulSet('st', ns, { replicas: 2, claims: true }), { namespace: ns });
    await eventually(async () => {
      await readyAll(client, ns);
      const s = (await getSet('st', ns)).status;
      return s?.readyReplicas === 2 && s.currentRevision === s.updateRevision;
    }, 'two ready');
    // Every set of the suite at rest: the last status write observed.
    await eventually(async () => (await client.list(builtin.statefulSets)).items.every((s) => s.status?.observedGeneration === s.metadata.generation), 'all observed');
    loop.stop();
    const before = await server.store.revision();
    const restarted = loopHarness(client);
    restarted.run(statefulSetController(restarted.ctx, { concurrency: 5, now: clock }));
    const keys = (await client.list(builtin.statefulSets)).items.length;
    await eventually(() => new Set(restarted.results.map((r) => r.key)).size >= keys, 'every StatefulSet reconciled');
    expect(await server.store.revision()).toBe(before);
    loop = restarted;
  });
});
