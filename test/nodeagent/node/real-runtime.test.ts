import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import { criRuntimeInfo, defaultRouteAddress, internalIps, nodeStatusDefaults, readSystemIdentity, startNodeStatus, thisHost } from '../../../src/nodeagent/index.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { startClientTestServer, type ClientTestServer } from '../../client/support.js';

let containerd: RunningContainerd;
let t: ClientTestServer;

beforeAll(async () => {
  containerd = await startContainerd({ importImages: false });
  t = await startClientTestServer();
}, 120_000);
afterAll(async () => {
  await t?.close();
  await containerd?.stop();
  expect(containerd.leftovers()).toMatchObject({ shims: [], mounts: [], containerdRunning: false, bridgePresent: false });
}, 120_000);

describe('node status on this machine with a real containerd', () => {
  it('reports the runtime version, Ready from its Status call, and this host\'s figures', async () => {
    const version = await containerd.cri.version();
    const h = startNodeStatus({
      client: t.client,
      options: { ...nodeStatusDefaults, hostnameOverride: 'real-node', rootDir: containerd.dir },
      runtime: criRuntimeInfo(containerd.cri),
      version: '0.9.0',
      statusCheckIntervalMs: 50,
    });
    try {
      let node = await t.client.get(builtin.nodes, 'real-node').catch(() => undefined);
      const deadline = Date.now() + 30_000;
      while (!node?.status?.conditions && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        node = await t.client.get(builtin.nodes, 'real-node').catch(() => undefined);
      }
      expect(node?.status?.nodeInfo?.containerRuntimeVersion).toBe(`${version.runtimeName}://${version.runtimeVersion}`);
      expect(version.runtimeName).toBe('containerd');
      expect(node?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      expect(Number(node?.status?.capacity?.['cpu'])).toBe(thisHost.cpus());
      expect(node?.status?.capacity?.['memory']).toMatch(/^\d+(Ki)?$/);
      expect(node?.status?.nodeInfo?.bootID).toMatch(/^[0-9a-f-]{36}$/);
      expect(node?.status?.nodeInfo).toMatchObject({ ...readSystemIdentity(), kubeletVersion: 'v0.9.0', kubeProxyVersion: 'v0.9.0', operatingSystem: 'linux' });
      expect(node?.status?.nodeInfo?.systemUUID).not.toBe('');
      // The InternalIP is the default route's source address, an address of this host.
      const internal = node?.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
      const local = Object.values(networkInterfaces()).flatMap((l) => (l ?? []).map((a) => a.address));
      expect(local).toContain(internal);
      expect(internal).toBe(defaultRouteAddress(4) ?? defaultRouteAddress(6));
    } finally {
      await h.stop();
    }
  }, 60_000);

  it('finds the default route in /proc/net/route text and refuses a host without one', () => {
    const routes = 'Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\nlo\t0000007F\t00000000\t0001\t0\t0\t0\t000000FF\neth1\t00000000\t010200C0\t0003\t0\t0\t200\t00000000\neth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\n';
    const interfaces = () => ({
      eth0: [{ address: '192.0.2.2', netmask: '255.255.255.0', family: 'IPv4' as const, mac: '', internal: false, cidr: '192.0.2.2/24' }],
      eth1: [{ address: '198.51.100.7', netmask: '255.255.255.0', family: 'IPv4' as const, mac: '', internal: false, cidr: '198.51.100.7/24' }],
    });
    expect(internalIps(undefined, { ipv4Routes: () => routes, ipv6Routes: () => '', interfaces })).toEqual(['192.0.2.2']);
    expect(internalIps('198.51.100.7', { interfaces })).toEqual(['198.51.100.7']);
    expect(() => internalIps(undefined, { ipv4Routes: () => '', ipv6Routes: () => '', interfaces })).toThrow(/no default route/);
  });
});
