// Service cluster IPs and NodePorts as the API server allocates them: unique, inside
// --service-cluster-ip-range / --service-node-port-range (a tiny range here, so "every address
// once" is checked by filling it), named values checked (422 out of range, 422 taken), kept on
// update and immutable, released on delete and on a type change, and repaired after a restart
// (a reservation lost while the server was down is put back; one no Service holds is removed).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError, type Service } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { openStore } from '../../src/storage/index.js';
import { startApiServer, type RunningApiServer } from '../support/api-server.js';

// The allocator alone: without the `kubernetes` Service (which would hold the range's first address).
const args = (dir: string) => ['--storage=sqlite', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dir}`, '--service-cluster-ip-range=10.96.0.0/28', '--service-node-port-range=30000-30004', '--endpoint-reconciler-type=none'];

const svc = (name: string, spec: Service['spec']): Service => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ port: 80 }], ...spec } });

async function refusal(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await request;
  } catch (error) {
    if (!isStatusError(error)) throw error;
    return { code: error.code, message: error.message };
  }
  throw new Error('the request was accepted');
}

describe('Service cluster IPs and NodePorts', () => {
  let dir: string;
  let server: RunningApiServer;
  let client: Client;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-alloc-'));
    server = await startApiServer(args(dir));
    client = await Client.fromSvcconfig(server.svcconfigPath);
  });
  afterAll(async () => {
    await client?.destroy();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('gives every Service its own address of the range until it is full, then refuses; a deleted one frees its address', async () => {
    // 10.96.0.0/28: 14 usable addresses (.1 to .14).
    const ips: string[] = [];
    for (let i = 0; i < 14; i++) {
      const created = await client.create(builtin.services, svc(`fill-${i}`, {}), { namespace: 'default' });
      expect(created.spec?.clusterIPs).toEqual([created.spec?.clusterIP]);
      expect(created.spec?.ipFamilies).toEqual(['IPv4']);
      expect(created.spec?.ipFamilyPolicy).toBe('SingleStack');
      ips.push(created.spec!.clusterIP!);
    }
    expect(new Set(ips).size).toBe(14);
    expect(ips.map((ip) => Number(ip.split('.')[3])).sort((a, b) => a - b)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
    const full = await refusal(client.create(builtin.services, svc('one-more', {}), { namespace: 'default' }));
    expect(full.code).toBe(422);
    expect(full.message).toContain('range is full');
    await expect(client.get(builtin.services, 'one-more', { namespace: 'default' })).rejects.toMatchObject({ code: 404 });

    const freed = (await client.get(builtin.services, 'fill-3', { namespace: 'default' })).spec!.clusterIP!;
    await client.delete(builtin.services, 'fill-3', { namespace: 'default' });
    const again = await client.create(builtin.services, svc('one-more', {}), { namespace: 'default' });
    expect(again.spec?.clusterIP).toBe(freed);
    for (let i = 0; i < 14; i++) if (i !== 3) await client.delete(builtin.services, `fill-${i}`, { namespace: 'default' });
    await client.delete(builtin.services, 'one-more', { namespace: 'default' });
  });

  it('refuses a named address out of range or taken, and a port out of range, with 422 and nothing stored', async () => {
    const outside = await refusal(client.create(builtin.services, svc('outside', { clusterIP: '10.1.2.3' }), { namespace: 'default' }));
    expect(outside.code).toBe(422);
    expect(outside.message).toContain('provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/28');
    await client.create(builtin.services, svc('named', { clusterIP: '10.96.0.1' }), { namespace: 'default' });
    const taken = await refusal(client.create(builtin.services, svc('clash', { clusterIP: '10.96.0.1' }), { namespace: 'default' }));
    expect(taken.code).toBe(422);
    expect(taken.message).toContain('provided IP is already allocated');
    const badPort = await refusal(client.create(builtin.services, svc('badport', { ports: [{ port: 70000 }] }), { namespace: 'default' }));
    expect(badPort.code).toBe(422);
    for (const name of ['outside', 'clash', 'badport']) await expect(client.get(builtin.services, name, { namespace: 'default' })).rejects.toMatchObject({ code: 404 });
    // The clusterIP is immutable; an update that leaves it out keeps it.
    const named = await client.get(builtin.services, 'named', { namespace: 'default' });
    const moved = await refusal(client.update(builtin.services, { ...named, spec: { ...named.spec, clusterIP: '10.96.0.2', clusterIPs: ['10.96.0.2'] } }, { namespace: 'default' }));
    expect(moved.code).toBe(422);
    expect(moved.message).toContain('may not change once set');
    const { clusterIP: _ip, clusterIPs: _ips, ...rest } = named.spec!;
    const kept = await client.update(builtin.services, { ...named, spec: rest }, { namespace: 'default' });
    expect(kept.spec?.clusterIP).toBe('10.96.0.1');
    await client.delete(builtin.services, 'named', { namespace: 'default' });
  });

  it('allocates NodePorts uniquely in range, refuses a clash or one out of range, keeps them on update and frees them on a type change', async () => {
    const a = await client.create(builtin.services, svc('np-a', { type: 'NodePort', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] }), { namespace: 'default' });
    const ports = a.spec!.ports!.map((p) => p.nodePort!);
    expect(new Set(ports).size).toBe(2);
    for (const port of ports) expect(port).toBeGreaterThanOrEqual(30000), expect(port).toBeLessThanOrEqual(30004);
    const clash = await refusal(client.create(builtin.services, svc('np-clash', { type: 'NodePort', ports: [{ port: 80, nodePort: ports[0] }] }), { namespace: 'default' }));
    expect(clash.code).toBe(422);
    expect(clash.message).toContain(`spec.ports[0].nodePort: Invalid value: ${ports[0]}: provided port is already allocated`);
    const outside = await refusal(client.create(builtin.services, svc('np-out', { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }), { namespace: 'default' }));
    expect(outside.code).toBe(422);
    expect(outside.message).toContain('The range of valid ports is 30000-30004');
    const onClusterIp = await refusal(client.create(builtin.services, svc('np-cip', { ports: [{ port: 80, nodePort: 30003 }] }), { namespace: 'default' }));
    expect(onClusterIp.code).toBe(422);

    // An update without nodePorts keeps them.
    const current = await client.get(builtin.services, 'np-a', { namespace: 'default' });
    const updated = await client.update(builtin.services, { ...current, spec: { ...current.spec, ports: [{ name: 'a', port: 80, protocol: 'TCP' }, { name: 'b', port: 81, protocol: 'TCP' }] } }, { namespace: 'default' });
    expect(updated.spec!.ports!.map((p) => p.nodePort)).toEqual(ports);
    // Back to ClusterIP: the ports are free for another Service.
    await client.update(builtin.services, { ...updated, spec: { ...updated.spec, type: 'ClusterIP' } }, { namespace: 'default' });
    const b = await client.create(builtin.services, svc('np-b', { type: 'NodePort', ports: [{ port: 80, nodePort: ports[0] }] }), { namespace: 'default' });
    expect(b.spec!.ports![0]!.nodePort).toBe(ports[0]);
    await client.delete(builtin.services, 'np-b', { namespace: 'default' });
    await client.delete(builtin.services, 'np-a', { namespace: 'default' });
  });

  it('repairs the reservations after a restart: a lost one is put back, one no Service holds goes', async () => {
    const kept = await client.create(builtin.services, svc('survivor', { clusterIP: '10.96.0.5', type: 'NodePort', ports: [{ port: 80, nodePort: 30002 }] }), { namespace: 'default' });
    expect(kept.spec?.clusterIP).toBe('10.96.0.5');
    await client.destroy();
    await server.close();
    // While the server is down: the survivor's reservations vanish, and a stray one appears.
    const opened = await openStore({ backend: 'sqlite', dataDir: dir, retention: false });
    const prefix = `${opened.store.prefix}svc-allocations/`;
    await opened.store.forceDelete(`${prefix}clusterips/10.96.0.5`);
    await opened.store.forceDelete(`${prefix}nodeports/30002`);
    await opened.store.create(`${prefix}clusterips/10.96.0.9`, new TextEncoder().encode(JSON.stringify({ namespace: 'default', name: 'ghost', uid: 'nobody', at: 0 })));
    await opened.close();

    server = await startApiServer(args(dir));
    client = await Client.fromSvcconfig(server.svcconfigPath);
    const clash = await refusal(client.create(builtin.services, svc('thief', { clusterIP: '10.96.0.5' }), { namespace: 'default' }));
    expect(clash.message).toContain('provided IP is already allocated');
    const portClash = await refusal(client.create(builtin.services, svc('thief', { type: 'NodePort', ports: [{ port: 80, nodePort: 30002 }] }), { namespace: 'default' }));
    expect(portClash.message).toContain('provided port is already allocated');
    const freed = await client.create(builtin.services, svc('ghostbuster', { clusterIP: '10.96.0.9' }), { namespace: 'default' });
    expect(freed.spec?.clusterIP).toBe('10.96.0.9');
  });
});
