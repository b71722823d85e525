// Issue #24's unconverged bench run, taken apart. Whether the slice writes of one sync phase go at
// once or one after another, what the loop decides next must not depend on when its informer shows those writes:
// - applySlices with the SliceTracker, its cache frozen at any point (before the writes, between
//   them, caught up): every round of flips lands on the server exactly, with only the slices
//   holding a flipped endpoint rewritten and no conflict;
// - the loop itself with the API server ending its watches whenever they fall behind at all
//   (watchBufferEvents 0: they resume or relist): the server's slices end agreeing with the pods.
// (The bench run's "never seen" flips were its observer's watch lagging behind the writes while
// the server's slices already agreed: docs/benchmarks.md.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import { applySlices, controllerRef, SliceTracker, type SliceEndpoint, type SliceWrites } from '../../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { createNamespaceWithAccount } from '../../support/namespace-with-account.js';
import { eventually } from '../support.js';
import { httpPort, runningPod, service, setPodStatus } from './network-fixtures.js';

const NS = 'conv';
const ipOf = (i: number) => `10.9.0.${i + 1}`;

async function slicesOf(client: Client, name: string): Promise<EndpointSlice[]> {
  return [...(await client.list(builtin.endpointSlices, { namespace: NS, labelSelector: `kubernetes.io/service-name=${name}` })).items];
}

/** Each IP's ready condition as the slices hold it (an IP in two slices counts twice: a wrong answer). */
function readiness(slices: readonly EndpointSlice[]): Map<string, boolean | undefined> {
  const out = new Map<string, boolean | undefined>();
  for (const slice of slices) for (const endpoint of slice.endpoints) out.set(endpoint.addresses[0]!, out.has(endpoint.addresses[0]!) ? undefined : endpoint.conditions?.ready);
  return out;
}

/** A fixed sequence of pod indexes (a linear congruential generator): the same flips every run. */
function* picks(count: number, seed: number): Generator<number> {
  let x = seed;
  for (;;) {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    yield x % count;
  }
}

describe('endpoint slices converge whatever the informer has seen of the loop\'s own writes', () => {
  it.each([
    ['at once', Infinity],
    ['two at a time', 2],
    ['one after another', 1],
  ])('applySlices writes each phase %s and lands every round of flips, from a cache frozen before, between and after its writes', async (_writer, writesInFlight) => {
    await using cluster = await startTestCluster({ namespaces: [NS] });
    const client = cluster.newClient({ userAgent: 'slice-writer' });
    const svc: Service = await cluster.client.create(builtin.services, service('frozen', NS, { selector: { app: 'frozen' }, ports: [httpPort(80)] }), { namespace: NS });
    const owner = controllerRef(svc, { group: '', version: 'v1', kind: 'Service' });
    const labels = { 'kubernetes.io/service-name': 'frozen', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' };
    const tracker = new SliceTracker();
    const ready = new Array<boolean>(12).fill(true);
    const desired = (): SliceEndpoint[] => ready.map((value, i) => ({ addresses: [ipOf(i)], conditions: { ready: value, serving: value, terminating: false } }));
    const apply = async (cache: readonly EndpointSlice[]): Promise<SliceWrites> =>
      applySlices({
        client,
        tracker,
        namespace: NS,
        owner,
        namePrefix: 'frozen-',
        existing: tracker.current(cache, svc.metadata.uid!),
        desired: [{ addressType: 'IPv4', ports: [{ name: 'http', port: 80, protocol: 'TCP' }], endpoints: desired() }],
        labels,
        maxPerSlice: 3,
        writesInFlight,
      });
    const agrees = async () => {
      const slices = await slicesOf(cluster.client, 'frozen');
      const seen = readiness(slices);
      return seen.size === ready.length && ready.every((value, i) => seen.get(ipOf(i)) === value);
    };

    // The informer has seen nothing yet: four slices made at once.
    expect(await apply([])).toEqual({ created: 4, updated: 0, deleted: 0 });
    expect(await agrees()).toBe(true);
    const afterCreate = await slicesOf(cluster.client, 'frozen');

    // Rounds of flips, each in three slices (pods 0, 4 and 8 sit in three different slices of
    // three), with the cache stuck before the creates, at the creates, and caught up.
    const caches: (() => Promise<readonly EndpointSlice[]>)[] = [async () => [], async () => [], async () => afterCreate, async () => afterCreate, () => slicesOf(cluster.client, 'frozen')];
    let round = 0;
    for (const cache of caches) {
      for (const i of [0, 4, 8]) ready[(i + round) % ready.length] = !ready[(i + round) % ready.length];
      round++;
      const writes = await apply(await cache());
      expect(writes, `round ${round}`).toEqual({ created: 0, updated: 3, deleted: 0 });
      expect(await agrees(), `round ${round}`).toBe(true);
    }
    // Nothing changed: nothing written.
    expect(await apply(await slicesOf(cluster.client, 'frozen'))).toEqual({ created: 0, updated: 0, deleted: 0 });
    expect(await slicesOf(cluster.client, 'frozen')).toHaveLength(4);
    // Every write was accepted the first time: no 409 was retried.
    expect(cluster.writes('slice-writer')).toBe(4 + 3 * caches.length);
  });

  describe('the loop, its watches ended whenever they fall behind', () => {
    let cluster: TestCluster;
    let client: Client;
    const PODS = 30;
    const ready = new Array<boolean>(PODS).fill(true);
    beforeAll(async () => {
      cluster = await startTestCluster({
        // No budget either: a watch counts as full at its stream's high-water mark, as before.
        apiServer: { watchBufferEvents: 0, watchSocketBudgetBytes: 0 },
        controllers: { controllers: ['endpointslice-controller'], loopSettings: { maxEndpointsPerSlice: 5 } },
      });
      client = cluster.client;
      await createNamespaceWithAccount(client, NS);
    });
    afterAll(() => cluster.stop());

    it('ends with slices that agree with every pod after bursts of readiness flips', async () => {
      await client.create(builtin.services, service('busy', NS, { selector: { app: 'busy' }, ports: [httpPort(80)] }), { namespace: NS });
      await Promise.all(Array.from({ length: PODS }, (_, i) => runningPod(client, NS, `busy-${i}`, ipOf(i), true, { labels: { app: 'busy' } })));
      const agrees = async () => {
        const seen = readiness(await slicesOf(client, 'busy'));
        return seen.size === PODS && ready.every((value, i) => seen.get(ipOf(i)) === value);
      };
      await eventually(agrees, 'every pod published');

      // Bursts of flips of distinct pods, written at once: the loop's pod watch gets them in a heap.
      const pick = picks(PODS, 24);
      for (let burst = 0; burst < 8; burst++) {
        const chosen = new Set<number>();
        while (chosen.size < 12) chosen.add(pick.next().value!);
        await Promise.all(
          [...chosen].map((i) => {
            ready[i] = !ready[i];
            return setPodStatus(client, NS, `busy-${i}`, ipOf(i), ready[i]!);
          }),
        );
      }
      await eventually(agrees, 'the slices agree with every pod');
      // Every endpoint once (readiness() tells a doubled one), no slice over the maximum.
      for (const slice of await slicesOf(client, 'busy')) expect(slice.endpoints.length).toBeLessThanOrEqual(5);
    });
  });
});
