/**
 * Many pods at once: bindings in flight never overcommit a node (the cache assumes each pod before
 * its binding is sent), and two schedulers racing for the same pods never bind one twice (the
 * API server binds once and answers 409 after).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import { milliValue } from '../../../controllers/scheduler/index.js';
import { createNodes, createPods, node, pod, startBed, until, type SchedulerTestBed } from './support.js';

let bed: SchedulerTestBed;
beforeEach(async () => {
  bed = await startBed();
});
afterEach(async () => bed?.close());

async function placements(): Promise<Map<string, string>> {
  const pods = (await bed.client.list(builtin.pods)).items;
  return new Map(pods.map((p) => [p.metadata.name ?? '', p.spec.nodeName ?? '']));
}

describe('binding under concurrent creates', () => {
  it('fills 5 nodes with 200 pods exactly, 64 bindings in flight, and leaves the 5 extra pods unschedulable', async () => {
    await createNodes(bed.client, ...Array.from({ length: 5 }, (_, i) => node(`n${i}`, { cpu: '8', memory: '64Gi' })));
    const running = bed.start({ bindConcurrency: 64 });
    const pods = Array.from({ length: 205 }, (_, i) => pod(`p${i}`, { cpu: '200m', memory: '100Mi' }));
    await createPods(bed.client, ...pods);
    await until(
      () => running.results.filter((r) => r.type === 'bound').length === 200 && new Set(running.results.filter((r) => r.type === 'unschedulable').map((r) => r.pod)).size === 5,
      '200 bound and 5 unschedulable',
      60_000,
    );
    const at = await placements();
    const perNode = new Map<string, number>();
    for (const nodeName of at.values()) if (nodeName) perNode.set(nodeName, (perNode.get(nodeName) ?? 0) + 1);
    expect([...perNode.values()]).toEqual([40, 40, 40, 40, 40]);
    // The requests on each node sum to its allocatable at most.
    const requested = new Map<string, number>();
    for (const p of (await bed.client.list(builtin.pods)).items) {
      if (!p.spec.nodeName) continue;
      requested.set(p.spec.nodeName, (requested.get(p.spec.nodeName) ?? 0) + milliValue(p.spec.containers[0]!.resources!.requests!['cpu']));
    }
    for (const total of requested.values()) expect(total).toBeLessThanOrEqual(8000);
    const bound = running.results.filter((r) => r.type === 'bound').map((r) => r.pod);
    expect(new Set(bound).size).toBe(200);
  });

  it('two schedulers racing without leader election bind each pod exactly once', async () => {
    await createNodes(bed.client, ...Array.from({ length: 5 }, (_, i) => node(`n${i}`, { cpu: '64', memory: '256Gi' })));
    const one = bed.start({ bindConcurrency: 16, identity: 'one' });
    const two = bed.start({ bindConcurrency: 16, identity: 'two' });
    const pods = Array.from({ length: 200 }, (_, i) => pod(`p${i}`, { cpu: '100m' }));
    await createPods(bed.client, ...pods);
    await until(async () => [...(await placements()).values()].filter(Boolean).length === 200, 'all bound', 60_000);
    await until(() => one.state.queue.sizes.active + two.state.queue.sizes.active === 0, 'both queues drained', 20_000);
    const bound = [...one.results, ...two.results].filter((r) => r.type === 'bound').map((r) => r.pod);
    expect(bound).toHaveLength(200);
    expect(new Set(bound).size).toBe(200);
    // The loser of a race heard 409 Conflict: the pod was bound already.
    for (const r of [...one.results, ...two.results]) if (r.type === 'error') expect((r.error as { code?: number }).code).toBe(409);
  });
});
