// The endpointslice loop's desired endpoints kept between syncs (EndpointCache): a pod version and
// a Service version give the same endpoint objects sync after sync, and whatever changes an
// endpoint — a new pod version, a new Service version, a node relabelled to another zone — gives
// the new endpoint (issue #24: a sync computes only the pods that changed); and the loop's report of
// each sync (onSync), which the bench splits a flip's latency by.
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../src/api/index.js';
import { builtin, DiscoveryCache, EventRecorder, InformerFactory } from '../../../src/client/index.js';
import { startTestCluster } from '../../../src/testing/index.js';
import { desiredGroups, EndpointCache, endpointSliceController, ZONE_LABEL, type SyncReport } from '../../../controllers/endpointslice/index.js';
import { eventually } from '../support.js';
import { httpPort, pod, runningPod, service } from './network-fixtures.js';

const running = (name: string, ip: string, ready: boolean, nodeName?: string, labels: Record<string, string> = { app: 'web' }): Pod => {
  const base = pod(name, 'ns', { labels, ports: { http: 8080 }, ...(nodeName ? { nodeName } : {}) });
  return { ...base, metadata: { ...base.metadata, uid: `uid-${name}` }, status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } };
};
const node = (name: string, zone: string): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { [ZONE_LABEL]: zone } } });
const svc = (publishNotReadyAddresses = false) => service('web', 'ns', { selector: { app: 'web' }, ports: [httpPort()], ...(publishNotReadyAddresses ? { publishNotReadyAddresses } : {}) });

describe('EndpointCache', () => {
  it('hands out the same endpoint objects while the pods and the Service are unchanged, and new ones for what changed', () => {
    const cache = new EndpointCache();
    const nodes = new Map([['n1', node('n1', 'z1')]]);
    const nodeOf = (name: string) => nodes.get(name);
    const service = svc();
    const a = running('a', '10.0.0.1', true, 'n1');
    const b = running('b', '10.0.0.2', true, 'n1');
    const other = running('x', '10.0.0.9', true, 'n1', { app: 'other' });
    const first = desiredGroups(service, [b, other, a], nodeOf, cache);
    expect(first).toHaveLength(1);
    expect(first[0]!.endpoints.map((e) => e.targetRef?.name)).toEqual(['a', 'b']);
    expect(first[0]!.endpoints.map((e) => e.zone)).toEqual(['z1', 'z1']);
    expect(first[0]!.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);

    // Unchanged: the very same objects (a later sync compares them by identity first).
    const again = desiredGroups(service, [a, b, other], nodeOf, cache);
    expect(again[0]!.endpoints[0]).toBe(first[0]!.endpoints[0]);
    expect(again[0]!.endpoints[1]).toBe(first[0]!.endpoints[1]);
    expect(Object.isFrozen(again[0]!.endpoints[0])).toBe(true);

    // A new version of b (not ready): b's endpoint is new, a's is kept.
    const b2 = running('b', '10.0.0.2', false, 'n1');
    const flipped = desiredGroups(service, [a, b2], nodeOf, cache);
    expect(flipped[0]!.endpoints[0]).toBe(first[0]!.endpoints[0]);
    expect(flipped[0]!.endpoints[1]!.conditions).toEqual({ ready: false, serving: false, terminating: false });

    // The node moves to another zone: no pod version changed, yet the endpoints follow.
    nodes.set('n1', node('n1', 'z2'));
    const moved = desiredGroups(service, [a, b2], nodeOf, cache);
    expect(moved[0]!.endpoints.map((e) => e.zone)).toEqual(['z2', 'z2']);

    // A new Service version that publishes not-ready addresses: every endpoint ready.
    const published = desiredGroups(svc(true), [a, b2], nodeOf, cache);
    expect(published[0]!.endpoints.map((e) => e.conditions?.ready)).toEqual([true, true]);

    // The pod relabelled out of the selector is left out.
    const relabelled = running('a', '10.0.0.1', true, 'n1', { app: 'gone' });
    expect(desiredGroups(service, [relabelled, b2], nodeOf, cache)[0]!.endpoints.map((e) => e.targetRef?.name)).toEqual(['b']);
  });

  it('gives what a fresh computation gives', () => {
    const nodes = new Map([['n1', node('n1', 'z1')]]);
    const pods = Array.from({ length: 50 }, (_, i) => running(`p-${i}`, `10.0.1.${i}`, i % 3 !== 0, i % 2 === 0 ? 'n1' : undefined));
    const cache = new EndpointCache();
    const service = svc();
    desiredGroups(service, pods, (name) => nodes.get(name), cache);
    const changed = pods.map((p, i) => (i % 7 === 0 ? running(p.metadata.name!, p.status!.podIP!, i % 3 === 0, p.spec?.nodeName) : p));
    const cached = desiredGroups(service, changed, (name) => nodes.get(name), cache);
    expect(cached).toEqual(desiredGroups(service, changed, (name) => nodes.get(name)));
    expect(cached[0]!.endpoints.filter((e) => e.conditions?.ready === false)).toHaveLength(changed.filter((p) => p.status?.conditions?.[0]?.status === 'False').length);
  });
});

describe('the loop\'s sync reports (onSync)', () => {
  it('reports each sync of a Service with its writes, each slice written, and its moments in order', async () => {
    await using cluster = await startTestCluster({ namespaces: ['ns'] });
    const client = cluster.newClient({ userAgent: 'endpointslice-test' });
    const stop$ = new Subject<void>();
    const informers = new InformerFactory(client);
    const events = new EventRecorder({ client, component: 'endpointslice-controller' });
    const reports: { key: string; sync: SyncReport }[] = [];
    const loop = endpointSliceController(
      { name: 'endpointslice-controller', client, informers, discovery: new DiscoveryCache(client), events, stop$, controllerDefaults: () => ({}) },
      { maxEndpointsPerSlice: 2, onSync: (key, sync) => reports.push({ key, sync }) },
    ).subscribe();
    try {
      await cluster.client.create(builtin.services, svc(), { namespace: 'ns' });
      await Promise.all(['a', 'b', 'c'].map((name, i) => runningPod(cluster.client, 'ns', name, `10.0.0.${i + 1}`, true, { labels: { app: 'web' }, ports: { http: 8080 } })));
      const written = () => reports.flatMap((r) => r.sync.written.flatMap((w) => (w.slice.endpoints ?? []).map((e) => e.addresses[0])));
      await eventually(async () => ['10.0.0.1', '10.0.0.2', '10.0.0.3'].every((ip) => written().includes(ip)), 'every pod written in a reported sync');
      for (const { key, sync } of reports) {
        expect(key).toBe('ns/web');
        expect(sync.written).toHaveLength(sync.writes.created + sync.writes.updated);
        expect(sync.computedAt).toBeGreaterThanOrEqual(sync.startedAt);
        for (const { slice, at } of sync.written) {
          expect(slice.metadata.resourceVersion).toBeDefined();
          expect(at).toBeGreaterThanOrEqual(sync.computedAt);
          expect(at).toBeLessThanOrEqual(sync.endedAt);
        }
      }
    } finally {
      stop$.next();
      loop.unsubscribe();
      informers.stop();
      events.stop();
    }
  });
});
