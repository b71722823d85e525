// applySlices' `current` (issue #24): a slice write carries its endpoints' conditions as they are
// when the write is sent, so a flip that arrives while a sync's writes go out rides a write still
// to go. The plan's minimal churn stands: only the slices the plan rewrites are written, and no
// endpoint moves. Updates go out in the slices' name order, sync after sync.
import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import { applySlices, controllerRef, endpointKey, SliceTracker, type SliceEndpoint } from '../../../controllers/index.js';
import { startTestCluster } from '../../../src/testing/index.js';
import { httpPort, service } from './network-fixtures.js';

const NS = 'late';
const ipOf = (i: number) => `10.8.0.${i + 1}`;
const endpoint = (i: number, ready: boolean): SliceEndpoint => ({ addresses: [ipOf(i)], conditions: { ready, serving: ready, terminating: false } });

async function slicesOf(client: Client): Promise<EndpointSlice[]> {
  return [...(await client.list(builtin.endpointSlices, { namespace: NS })).items].sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
}
const ipsBySlice = (slices: readonly EndpointSlice[]) => slices.map((slice) => slice.endpoints.map((e) => e.addresses[0]).sort());
const readyOf = (slices: readonly EndpointSlice[]) => new Map(slices.flatMap((slice) => slice.endpoints.map((e) => [e.addresses[0]!, e.conditions?.ready] as const)));

describe('applySlices with the conditions at write time', () => {
  it('writes the current conditions into the slices the plan rewrites, and only those, in name order', async () => {
    await using cluster = await startTestCluster({ namespaces: [NS] });
    const client = cluster.newClient({ userAgent: 'slice-writer' });
    const svc: Service = await cluster.client.create(builtin.services, service('late', NS, { selector: { app: 'late' }, ports: [httpPort(80)] }), { namespace: NS });
    const tracker = new SliceTracker();
    const ready = new Array<boolean>(12).fill(true);
    /** What the pods say now (may be ahead of the plan). */
    const now = [...ready];
    const written: string[] = [];
    const apply = (desired: readonly boolean[], current?: (e: SliceEndpoint) => SliceEndpoint) =>
      applySlices({
        client,
        tracker,
        namespace: NS,
        owner: controllerRef(svc, { group: '', version: 'v1', kind: 'Service' }),
        namePrefix: 'late-',
        existing: tracker.current([], svc.metadata.uid!),
        desired: [{ addressType: 'IPv4', ports: [{ name: 'http', port: 80, protocol: 'TCP' }], endpoints: desired.map((value, i) => endpoint(i, value)) }],
        labels: { 'kubernetes.io/service-name': 'late' },
        maxPerSlice: 3,
        writesInFlight: 1,
        current,
        onWritten: (slice) => written.push(slice.metadata.name!),
      });
    const current = (planned: SliceEndpoint): SliceEndpoint => {
      const i = Number(endpointKey(planned).split('.')[3]) - 1;
      return now[i] === planned.conditions?.ready ? planned : endpoint(i, now[i]!);
    };

    expect(await apply(ready, current)).toEqual({ created: 4, updated: 0, deleted: 0 });
    const before = await slicesOf(cluster.client);
    const layout = ipsBySlice(before);
    expect(layout.flat()).toHaveLength(12);

    // The plan flips pod 0; by the time the writes go out pods 1 (in pod 0's slice) and 4 (in another) flipped too.
    ready[0] = now[0] = false;
    now[1] = false;
    now[4] = false;
    expect(await apply(ready, current)).toEqual({ created: 0, updated: 1, deleted: 0 });
    let slices = await slicesOf(cluster.client);
    expect(ipsBySlice(slices)).toEqual(layout);
    let seen = readyOf(slices);
    expect([0, 1, 4].map((i) => seen.get(ipOf(i)))).toEqual([false, false, true]);
    // Only pod 0's slice was written: pod 4's waits for the next sync, as the plan had it.
    const sliceOf = (i: number) => slices.find((slice) => slice.endpoints.some((e) => e.addresses[0] === ipOf(i)))!;
    expect(sliceOf(4).metadata.resourceVersion).toBe(before.find((s) => s.metadata.name === sliceOf(4).metadata.name)!.metadata.resourceVersion);

    // The next sync's plan has pods 0, 1 and 4 flipped: pod 1 is written already, so only pod 4's slice is.
    ready[1] = false;
    ready[4] = false;
    expect(await apply(ready, current)).toEqual({ created: 0, updated: 1, deleted: 0 });
    slices = await slicesOf(cluster.client);
    seen = readyOf(slices);
    expect(ready.every((value, i) => seen.get(ipOf(i)) === value)).toBe(true);
    expect(ipsBySlice(slices)).toEqual(layout);

    // Every slice rewritten: one after another in name order, twice the same order.
    for (const round of [0, 1]) {
      written.length = 0;
      for (let i = 0; i < ready.length; i++) ready[i] = now[i] = round === 1;
      expect(await apply(ready, current)).toEqual({ created: 0, updated: 4, deleted: 0 });
      expect(written).toEqual(before.map((slice) => slice.metadata.name));
    }
    // Nothing left to write.
    expect(await apply(ready, current)).toEqual({ created: 0, updated: 0, deleted: 0 });
  });
});
