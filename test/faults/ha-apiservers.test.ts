// Three svc-apiserver processes on one 3-member etcd cluster, each with its own watch cache
// (docs/ha.md): a write through one is seen by watches on the others, in order; the `kubernetes`
// Service's Endpoints and EndpointSlice list every live server, and drop one killed with SIGKILL
// once its Lease lapses; a client whose svcconfig lists every server goes on through another
// when its server dies — requests and a running watch alike — and kubectl reads that svcconfig.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client, loadSvcconfig, type WatcherEvent } from '../../src/client/index.js';
import type { ConfigMap } from '../../src/api/index.js';
import { eventually } from '../controllers/support.js';
import { kubectl } from '../support/kubectl.js';
import { isStream, openWatch } from '../support/watch-client.js';
import { call, killAllApiServers } from './apiserver-process.js';
import { startHaControlPlane, type HaControlPlane } from './ha-control-plane.js';

const NS = 'ha';
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
/** The `kubernetes` Service loop's Lease (15 s) and renewal period (10 s), as the API server runs it. */
const APISERVER_LEASE_MS = 15_000 + 10_000;

describe('several API servers on one etcd cluster', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ha-apiservers-'));
  let plane: HaControlPlane;

  beforeAll(async () => {
    plane = await startHaControlPlane(dir, 3);
    const created = await call(plane.servers[0]!, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }, 180_000);
  afterAll(async () => {
    killAllApiServers();
    await plane?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows a write through one server to watches on the others, every event once and in order', async () => {
    const [writer, ...others] = plane.servers;
    const start = await call(writer!, 'GET', CONFIGMAPS);
    const watches = [];
    for (const server of others) {
      const stream = await openWatch(`${server.url}${CONFIGMAPS}?watch=1&resourceVersion=${start.body.metadata.resourceVersion}`, { token: server.token, ca: server.ca });
      if (!isStream(stream)) throw new Error(`watch refused: ${stream.status} ${JSON.stringify(stream.body)}`);
      watches.push(stream);
    }
    const written: string[] = [];
    for (let i = 0; i < 20; i++) {
      const created = await call(writer!, 'POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `order-${i}` }, data: { v: '0' } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      written.push(`ADDED order-${i}@${created.body.metadata.resourceVersion}`);
      const updated = await call(writer!, 'PUT', `${CONFIGMAPS}/order-${i}`, { ...created.body, data: { v: '1' } });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      written.push(`MODIFIED order-${i}@${updated.body.metadata.resourceVersion}`);
    }
    const deleted = await call(writer!, 'DELETE', `${CONFIGMAPS}/order-0`);
    expect(deleted.status).toBe(200);
    for (const stream of watches) {
      const events = await stream.until((e) => e.type === 'DELETED' && e.object.metadata.name === 'order-0', 'the delete of order-0');
      const seen = events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`);
      expect(seen.slice(0, -1)).toEqual(written);
      expect(seen.at(-1)).toMatch(/^DELETED order-0@/);
      stream.abort();
    }
  });

  it('gives every server\'s watches the same sequence when all three are written through at once', async () => {
    const start = await call(plane.servers[0]!, 'GET', CONFIGMAPS);
    const streams = [];
    for (const server of plane.servers) {
      const stream = await openWatch(`${server.url}${CONFIGMAPS}?watch=1&resourceVersion=${start.body.metadata.resourceVersion}`, { token: server.token, ca: server.ca });
      if (!isStream(stream)) throw new Error(`watch refused: ${stream.status} ${JSON.stringify(stream.body)}`);
      streams.push(stream);
    }
    const acked: string[] = [];
    await Promise.all(
      plane.servers.map(async (server, s) => {
        for (let i = 0; i < 15; i++) {
          const created = await call(server, 'POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `all-${s}-${i}` } });
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          acked.push(`all-${s}-${i}@${created.body.metadata.resourceVersion}`);
        }
      }),
    );
    const sentinel = await call(plane.servers[1]!, 'POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'all-end' } });
    expect(sentinel.status).toBe(201);
    const sequences: string[][] = [];
    for (const stream of streams) {
      const events = await stream.until((e) => e.type === 'ADDED' && e.object.metadata.name === 'all-end', 'all-end');
      sequences.push(events.filter((e) => e.type === 'ADDED' && e.object.metadata.name.startsWith('all-')).map((e) => `${e.object.metadata.name}@${e.object.metadata.resourceVersion}`));
      stream.abort();
    }
    const rvs = sequences[0]!.map((e) => Number(e.split('@')[1]));
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
    expect(new Set(rvs).size).toBe(rvs.length);
    expect([...sequences[0]!.slice(0, -1)].sort()).toEqual([...acked].sort());
    expect(sequences[1]).toEqual(sequences[0]);
    expect(sequences[2]).toEqual(sequences[0]);
  });

  const endpointsOf = async (server: HaControlPlane['servers'][number]) => {
    const endpoints = await call(server, 'GET', '/api/v1/namespaces/default/endpoints/kubernetes');
    const slice = await call(server, 'GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    if (endpoints.status !== 200 || slice.status !== 200) return undefined;
    return {
      endpoints: (endpoints.body.subsets ?? []).flatMap((s: any) => (s.addresses ?? []).map((a: any) => `${a.ip}:${s.ports[0].port}`)).sort() as string[],
      slice: (slice.body.endpoints ?? []).flatMap((e: any) => e.addresses.map((a: string) => `${a}:${slice.body.ports[0].port}`)).sort() as string[],
    };
  };

  it('lists every live server in the kubernetes Service, and drops one killed once its Lease lapses', async () => {
    const all = plane.servers.map((s) => `${s.address}:${plane.port}`).sort();
    const reader = plane.servers[0]!;
    await eventually(async () => JSON.stringify(await endpointsOf(reader)) === JSON.stringify({ endpoints: all, slice: all }), `Endpoints and slice listing ${all.join(', ')}`, 60_000);
    const service = await call(reader, 'GET', '/api/v1/namespaces/default/services/kubernetes');
    expect(service.body.spec.ports).toEqual([expect.objectContaining({ port: 443, targetPort: plane.port })]);
    const leases = await call(reader, 'GET', '/apis/coordination.k8s.io/v1/namespaces/svc-system/leases?labelSelector=apiserver.svc.io/identity');
    expect(leases.body.items.map((l: any) => l.metadata.annotations['apiserver.svc.io/advertise-address']).sort()).toEqual(plane.servers.map((s) => s.address).sort());

    const victim = plane.servers[2]!;
    await victim.kill();
    const rest = plane.servers.slice(0, 2).map((s) => `${s.address}:${plane.port}`).sort();
    // No clean withdrawal after a SIGKILL: the others drop it when its Lease lapses (bounded generously by the lease).
    await eventually(async () => JSON.stringify(await endpointsOf(reader)) === JSON.stringify({ endpoints: rest, slice: rest }), `the killed server out of ${all.join(', ')}`, 4 * APISERVER_LEASE_MS);
    await victim.restart();
    await eventually(async () => JSON.stringify(await endpointsOf(reader)) === JSON.stringify({ endpoints: all, slice: all }), 'the restarted server back', 60_000);
  }, 240_000);

  it('fails a client over to another server when its server dies: requests and a running watch go on', async () => {
    const target = await loadSvcconfig(plane.svcconfig);
    expect(target.server).toBe(plane.servers[0]!.url);
    expect(target.servers).toEqual(plane.servers.slice(1).map((s) => s.url));
    // kubectl keeps to `server` and ignores the extension.
    const got = await kubectl(plane.svcconfig, ['get', 'namespace', NS, '-o', 'name']);
    expect(got.stdout.trim(), got.stderr).toBe(`namespace/${NS}`);

    const client = await Client.fromSvcconfig(plane.svcconfig);
    const events: WatcherEvent<ConfigMap>[] = [];
    const subscription = client.watch$(builtin.configMaps, { namespace: NS, labelSelector: 'failover=yes' }).subscribe((e) => events.push(e));
    try {
      await eventually(() => events.some((e) => e.type === 'INIT_DONE'), 'the watch to list');
      await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before', labels: { failover: 'yes' } } }, { namespace: NS });
      await eventually(() => events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'before'), 'the watch to see "before"');

      const first = plane.servers[0]!;
      await first.kill();
      // The next request finds the first server gone and goes on to the next: no error reaches the
      // caller. A read is sent again whatever broke; a write only when it reached no server (one
      // sent on a connection the kill broke may have been applied: that error is the caller's).
      expect((await client.get(builtin.configMaps, 'before', { namespace: NS })).metadata.name).toBe('before');
      const after = await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after', labels: { failover: 'yes' } } }, { namespace: NS });
      expect(after.metadata.name).toBe('after');
      expect((await client.get(builtin.configMaps, 'after', { namespace: NS })).metadata.uid).toBe(after.metadata.uid);
      // The watch's stream broke with its server; it resumed on another from the last version it saw.
      await eventually(() => events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'after'), 'the watch to see "after" through another server', 60_000);
      const names = events.flatMap((e) => (e.type === 'ADDED' ? [e.object.metadata.name] : []));
      expect(names.filter((n) => n === 'before')).toHaveLength(1);
      expect(names.filter((n) => n === 'after')).toHaveLength(1);
      await first.restart();
    } finally {
      subscription.unsubscribe();
      await client.destroy();
    }
  }, 180_000);
});
