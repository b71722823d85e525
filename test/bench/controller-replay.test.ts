/**
 * svc/bench's controller replay: a recorded corpus through the ReplicaSet loop, its writes
 * answered by the test kit's server. The counts of a settled replay are the loop's decisions, so
 * they are the same every run and can be worked out by hand from the corpus below.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, Pod, ReplicaSet } from '../../src/api/index.js';
import { benchController, controllerBenchmark, formatReport, runBenchmarks } from '../../src/bench/index.js';
import { replicaSetController } from '../../controllers/index.js';
import { startTestCluster, type EventLine, type TestCluster } from '../../src/testing/index.js';

const rs = (status?: ReplicaSet['status']): ReplicaSet => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web', namespace: 't', uid: 'rs-1', resourceVersion: status ? '20' : '10', generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
  ...(status ? { status } : {}),
});
const pod = (name: string, resourceVersion: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 't',
    uid: `uid-${name}`,
    resourceVersion,
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: 'web' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-1', controller: true, blockOwnerDeletion: true }],
  },
  spec: { containers: [{ name: 'c', image: 'i' }] },
});
const line = (at: number, source: string, type: EventLine['type'], object?: KubeObject, objects?: KubeObject[]): string =>
  JSON.stringify({ at, source, type, ...(object ? { object } : {}), ...(objects ? { objects } : {}) });

// A ReplicaSet of 2 appears; its two pods appear; its status catches up; one pod goes.
const corpus = [
  line(0, 'replicasets.apps', 'SYNCED', undefined, []),
  line(0, 'pods', 'SYNCED', undefined, []),
  line(0, 'configmaps', 'SYNCED', undefined, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 't' } }]),
  line(1, 'replicasets.apps', 'ADDED', rs()),
  line(2, 'pods', 'ADDED', pod('web-a', '11')),
  line(3, 'pods', 'ADDED', pod('web-b', '12')),
  line(4, 'replicasets.apps', 'MODIFIED', rs({ replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 })),
  line(5, 'configmaps', 'ADDED', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y', namespace: 't' } }),
  line(6, 'pods', 'DELETED', pod('web-b', '13')),
].join('\n');

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

describe('benchController', () => {
  it('counts the reconciles and writes the corpus leads the ReplicaSet loop to', async () => {
    const before = await cluster.store.revision();
    const result = await benchController({ name: 'rs', loop: (ctx) => replicaSetController(ctx), corpus, cluster });
    const c = result.controller;
    // The configmaps lines reach no informer of the loop: not counted.
    expect(c.events).toBe(5);
    expect(result.items).toBe(5);
    // The ReplicaSet fed alone: one reconcile. A pod event triggers the ReplicaSet twice — as its
    // owner, and again once the loop's expectations have counted it (observeOwned) while the
    // first reconcile runs — so two reconciles each; the status the corpus then reports is the
    // computed one: one reconcile, no write.
    expect(c.reconciles).toBe(1 + 2 + 2 + 1 + 2);
    expect(result.outputs).toBe(8);
    // ADDED rs: 2 pods created + its status (replicas 0). Each pod ADDED: a status write per
    // reconcile (the cached ReplicaSet still has none: answered writes change nothing). Pod
    // deleted: 1 pod created + status, then status again (expectations wait for that pod).
    expect(c.writesByMethod).toEqual({ POST: 2 + 1, PUT: 1 + 2 + 2 + 0 + 2 });
    expect(c.writes).toBe(10);
    expect(c.writesPerEvent).toBeCloseTo(10 / 5);
    expect(c.recordedEvents).toBe(3); // SuccessfulCreate per pod created
    expect(c.results).toEqual({ awaitChange: 8 });
    expect(result.latencyMs?.p99).toBeGreaterThanOrEqual(result.latencyMs!.p50);
    expect(c.reconcilesPerSecond).toBeGreaterThan(0);
    // Answered, not stored: the recorded events stay the world.
    expect(await cluster.store.revision()).toBe(before);
  });

  it('gives the same counts every run, with a cluster of its own too', async () => {
    const run = () => benchController({ name: 'rs again', loop: (ctx) => replicaSetController(ctx), corpus });
    const [a, b] = [await run(), await run()];
    for (const r of [a, b]) expect([r.controller.events, r.controller.reconciles, r.controller.writes]).toEqual([5, 8, 10]);
  });

  it('runs under svc bench as a Benchmark, its figures in the report', async () => {
    const report = await runBenchmarks([controllerBenchmark({ name: 'rs replay', loop: (ctx) => replicaSetController(ctx), corpus, corpusName: 'tiny', cluster })], { repeat: 2 });
    expect(report.benches[0]!.runs.map((r) => r.controller?.writes)).toEqual([10, 10]);
    const table = formatReport(report);
    expect(table).toContain('| rs replay | 5 | 8 | ');
    expect(table).toContain('tiny (settle)');
  });
});

describe('benchController, flooded', () => {
  it('feeds every line at once: the same events, fewer reconciles (keys coalesce), the same every run', async () => {
    const run = () => benchController({ name: 'rs flood', loop: (ctx) => replicaSetController(ctx), corpus, cluster, pace: 'flood' });
    const [a, b] = [await run(), await run()];
    expect(a.controller.pace).toBe('flood');
    expect(a.controller.events).toBe(5);
    expect(a.controller.reconciles).toBeLessThan(8);
    expect(a.controller.reconciles).toBeGreaterThan(0);
    expect([b.controller.reconciles, b.controller.writes]).toEqual([a.controller.reconciles, a.controller.writes]);
  });
});

describe('benchController, on the recorded clock', () => {
  it('feeds each line at its recorded time over the speed, and reports every event it fed', async () => {
    const result = await benchController({ name: 'rs recorded', loop: (ctx) => replicaSetController(ctx), corpus, cluster, pace: { speed: 2 } });
    expect(result.controller.pace).toBe('recorded ×2');
    expect(result.input).toBe('recorded corpus (recorded ×2)');
    expect(result.controller.events).toBe(5);
    // The ReplicaSet is reconciled as it arrives, before any pod: it creates both.
    expect(result.controller.writesByMethod['POST']).toBeGreaterThanOrEqual(2);
  });

  it('refuses a speed that is not positive, before starting anything', async () => {
    await expect(benchController({ name: 'bad', loop: (ctx) => replicaSetController(ctx), corpus, pace: { speed: 0 } })).rejects.toThrow(/pace.speed must be positive/);
  });
});

describe('benchController, the corpus clock', () => {
  it('hands the loop the recording\'s wall time at the line being fed', async () => {
    const seen: number[] = [];
    await benchController({
      name: 'rs clock',
      corpus,
      cluster,
      loop: (ctx, now) =>
        replicaSetController(ctx, {
          now: () => {
            seen.push(now());
            return now();
          },
        }),
    });
    // The ReplicaSet, created at 00:00:00, arrived 1 ms into the recording; the last pod event at 6 ms.
    const created = Date.parse('2026-01-01T00:00:00Z');
    expect(seen[0]).toBe(created);
    expect(seen[seen.length - 1]).toBe(created + 5);
  });
});
