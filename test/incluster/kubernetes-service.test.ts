// The `kubernetes` Service in `default`, kept by each API server as upstream: the first IP of the
// service range, port 443 to the secure port, Endpoints and an EndpointSlice listing every live
// API server (one Lease each in svc-system), repaired when deleted, a stopped server withdrawn.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer } from '../../src/cli/apiserver-command.js';
import { builtin, Client } from '../../src/client/index.js';
import { masterCountAddresses, startKubernetesService, type RunningKubernetesService } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../controllers/support.js';

let cluster: TestCluster;
let client: Client;
const running: RunningKubernetesService[] = [];
/** Every write the loops sent (method and path), from their clients' throttle hook. */
const writes: string[] = [];

const start = (advertiseAddress: string, identity: string, now?: () => number, masterCount?: number) => {
  const loop = startKubernetesService({
    ...(masterCount !== undefined ? { masterCount } : {}),
    client: cluster.newClient({
      userAgent: identity,
      throttle: async ({ method, path }) => {
        if (method !== 'GET') writes.push(`${method} ${path}`);
      },
    }),
    serviceCidr: '10.0.0.0/24',
    advertiseAddress,
    securePort: 6443,
    identity,
    intervalMs: 200,
    leaseSeconds: 1,
    ...(now ? { now } : {}),
  });
  running.push(loop);
  return loop;
};

const endpointIps = async (): Promise<string[]> => {
  try {
    const e = await client.get(builtin.endpoints, 'kubernetes', { namespace: 'default' });
    return (e.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
  } catch {
    return [];
  }
};
const sliceIps = async (): Promise<string[]> => {
  try {
    const s = await client.get(builtin.endpointSlices, 'kubernetes', { namespace: 'default' });
    return s.endpoints.flatMap((e) => e.addresses);
  } catch {
    return [];
  }
};
const same = (a: string[], b: string[]) => JSON.stringify(a) === JSON.stringify(b);

beforeAll(async () => {
  cluster = await startTestCluster();
  client = cluster.client;
});
afterAll(async () => {
  for (const loop of running) await loop.stop();
  await cluster.stop();
});

describe('the kubernetes Service', () => {
  it('is created with the first service IP and port 443 → the secure port, with its endpoints', async () => {
    start('192.0.2.10', 'apiserver-a');
    await eventually(async () => same(await endpointIps(), ['192.0.2.10']) && same(await sliceIps(), ['192.0.2.10']), 'endpoints of one server');
    const service = await client.get(builtin.services, 'kubernetes', { namespace: 'default' });
    expect(service.spec?.clusterIP).toBe('10.0.0.1');
    expect(service.spec?.ports).toEqual([expect.objectContaining({ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 })]);
    const endpoints = await client.get(builtin.endpoints, 'kubernetes', { namespace: 'default' });
    expect(endpoints.subsets?.[0]?.ports).toEqual([expect.objectContaining({ name: 'https', port: 6443, protocol: 'TCP' })]);
    const slice = await client.get(builtin.endpointSlices, 'kubernetes', { namespace: 'default' });
    expect(slice.metadata.labels?.['kubernetes.io/service-name']).toBe('kubernetes');
    expect(slice.addressType).toBe('IPv4');
    const lease = await client.get(builtin.leases, 'apiserver-a', { namespace: 'svc-system' });
    expect(lease.spec?.holderIdentity).toBe('apiserver-a');
  });

  it('at rest renews its Lease and writes nothing else: the Service, Endpoints and slice keep their versions', async () => {
    await eventually(async () => same(await endpointIps(), ['192.0.2.10']) && same(await sliceIps(), ['192.0.2.10']), 'endpoints of one server');
    const versions = async () =>
      Promise.all([
        client.get(builtin.services, 'kubernetes', { namespace: 'default' }),
        client.get(builtin.endpoints, 'kubernetes', { namespace: 'default' }),
        client.get(builtin.endpointSlices, 'kubernetes', { namespace: 'default' }),
      ]).then((objects) => objects.map((o) => o.metadata.resourceVersion));
    const before = await versions();
    const sent = writes.length;
    // Each renewal is a pass of the loop that also checked the Service, Endpoints and slice.
    const renewals = new Set<string | undefined>();
    await eventually(async () => {
      renewals.add((await client.get(builtin.leases, 'apiserver-a', { namespace: 'svc-system' })).metadata.resourceVersion);
      return renewals.size >= 4;
    }, 'three renewals of the Lease');
    expect(await versions()).toEqual(before);
    // Not even a write that would change nothing (the server would store nothing, but answer it).
    expect(writes.slice(sent).filter((w) => !w.includes('/leases/'))).toEqual([]);
  });

  it('is repaired when the Service, its Endpoints or its slice is deleted or edited', async () => {
    await eventually(async () => same(await endpointIps(), ['192.0.2.10']), 'endpoints');
    await client.delete(builtin.services, 'kubernetes', { namespace: 'default' });
    await eventually(async () => (await client.get(builtin.services, 'kubernetes', { namespace: 'default' }).catch(() => undefined))?.spec?.clusterIP === '10.0.0.1', 'the Service back');
    await client.delete(builtin.endpoints, 'kubernetes', { namespace: 'default' });
    await client.delete(builtin.endpointSlices, 'kubernetes', { namespace: 'default' });
    await eventually(async () => same(await endpointIps(), ['192.0.2.10']) && same(await sliceIps(), ['192.0.2.10']), 'endpoints and slice back');
    const service = await client.get(builtin.services, 'kubernetes', { namespace: 'default' });
    await client.update(builtin.services, { ...service, spec: { ...service.spec, ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 1 }] } }, { namespace: 'default' });
    await eventually(async () => (await client.get(builtin.services, 'kubernetes', { namespace: 'default' })).spec?.ports?.[0]?.targetPort === 6443, 'the port put back');
  });

  it('lists every live API server, drops one whose Lease lapses and withdraws one that stops', async () => {
    const b = start('192.0.2.11', 'apiserver-b');
    await eventually(async () => same(await endpointIps(), ['192.0.2.10', '192.0.2.11']) && same(await sliceIps(), ['192.0.2.10', '192.0.2.11']), 'both servers');
    await b.stop();
    await eventually(async () => same(await endpointIps(), ['192.0.2.10']) && same(await sliceIps(), ['192.0.2.10']), 'b withdrawn');
    await expect(client.get(builtin.leases, 'apiserver-b', { namespace: 'svc-system' })).rejects.toMatchObject({ code: 404 });

    // A server that dies without withdrawing: listed while its Lease is fresh, dropped once it lapses.
    const micro = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');
    await client.create(
      builtin.leases,
      {
        apiVersion: 'coordination.svc.io/v1',
        kind: 'Lease',
        metadata: { name: 'apiserver-dead', namespace: 'svc-system', labels: { 'apiserver.svc.io/identity': 'svc-apiserver' }, annotations: { 'apiserver.svc.io/advertise-address': '192.0.2.13' } },
        spec: { holderIdentity: 'apiserver-dead', leaseDurationSeconds: 2, renewTime: micro(Date.now()) },
      },
      { namespace: 'svc-system' },
    );
    await eventually(async () => same(await endpointIps(), ['192.0.2.10', '192.0.2.13']), 'the other server listed');
    await eventually(async () => same(await endpointIps(), ['192.0.2.10']) && same(await sliceIps(), ['192.0.2.10']), 'its lapsed Lease dropped');
  });

  it('with the master-count reconciler, each server adds itself and trims the list to --apiserver-count', async () => {
    for (const loop of running.splice(0)) await loop.stop();
    await eventually(async () => same(await endpointIps(), []), 'every lease server withdrawn');
    start('192.0.2.21', 'apiserver-m1', undefined, 2);
    start('192.0.2.22', 'apiserver-m2', undefined, 2);
    await eventually(async () => same(await endpointIps(), ['192.0.2.21', '192.0.2.22']) && same(await sliceIps(), ['192.0.2.21', '192.0.2.22']), 'two of two');
    // No Leases in this mode.
    const leases = await client.list(builtin.leases, { namespace: 'svc-system', labelSelector: 'apiserver.svc.io/identity' });
    expect(leases.items.map((l) => l.metadata.name).filter((n) => n?.startsWith('apiserver-m'))).toEqual([]);
    // A third with a count of 2: it puts itself in and takes out the address after its own.
    start('192.0.2.20', 'apiserver-m0', undefined, 2);
    await eventually(async () => (await endpointIps()).length === 2 && (await endpointIps()).includes('192.0.2.20'), 'the newcomer listed, two in all');
  });
});

describe('masterCountAddresses (upstream\'s master-count rule)', () => {
  it('keeps a list that holds this server within the count, else adds it and removes its successors', () => {
    expect(masterCountAddresses(['10.0.0.1', '10.0.0.2'], '10.0.0.2', 2)).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(masterCountAddresses(['10.0.0.1'], '10.0.0.2', 2)).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(masterCountAddresses(['10.0.0.1', '10.0.0.3'], '10.0.0.2', 2)).toEqual(['10.0.0.1', '10.0.0.2']);
    // Wraps round: the last one's successor is the first.
    expect(masterCountAddresses(['10.0.0.1', '10.0.0.2'], '10.0.0.3', 2)).toEqual(['10.0.0.2', '10.0.0.3']);
    expect(masterCountAddresses(['10.0.0.1', '10.0.0.2', '10.0.0.3'], '10.0.0.2', 1)).toEqual(['10.0.0.2']);
    expect(masterCountAddresses([], '10.0.0.9', 1)).toEqual(['10.0.0.9']);
  });
});

describe('svc-apiserver --endpoint-reconciler-type=master-count --apiserver-count', () => {
  it('runs the master-count rule: its address in the Endpoints, no Lease', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-master-count-'));
    const server = await startApiServer(['--storage=memory', '--secure-port=0', '--bind-address=127.0.0.1', '--advertise-address=127.0.0.9', '--endpoint-reconciler-type=master-count', '--apiserver-count=2', `--data-dir=${dir}`]);
    const admin = await Client.fromSvcconfig(server.svcconfigPath);
    try {
      const ips = async () => ((await admin.get(builtin.endpoints, 'kubernetes', { namespace: 'default' }).catch(() => undefined))?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
      await eventually(async () => same(await ips(), ['127.0.0.9']), 'its address listed');
      expect((await admin.list(builtin.leases, { namespace: 'svc-system', labelSelector: 'apiserver.svc.io/identity' })).items).toEqual([]);
    } finally {
      await admin.destroy();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
