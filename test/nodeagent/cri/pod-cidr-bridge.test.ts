import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyPodCidrToBridge, BRIDGE_CONFLIST, bridgeConflist, bridgeConflistPath } from '../../../src/nodeagent/index.js';

// The node agent's bridge follows the Node's podCIDR: the conflist svc writes beside its containerd's socket.
describe('pod CIDR → bridge conflist', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bridge-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const netd = join(dir, 'net.d');
  mkdirSync(netd);
  const path = join(netd, BRIDGE_CONFLIST);
  writeFileSync(path, JSON.stringify(bridgeConflist({ name: 'svc-b', bridge: 'svcb0', podCidr: '10.88.0.0/24', ipamDataDir: join(dir, 'ipam') })));
  const subnet = () => (JSON.parse(readFileSync(path, 'utf8')) as { plugins: { ipam?: { ranges: { subnet: string }[][] } }[] }).plugins[0]!.ipam!.ranges;

  it("finds svc's conflist from the runtime endpoint, and nothing for another runtime", () => {
    expect(bridgeConflistPath(`unix://${join(dir, 'containerd.sock')}`)).toBe(path);
    expect(bridgeConflistPath('unix:///run/containerd/containerd.sock.nonexistent')).toBeUndefined();
    expect(bridgeConflistPath('tcp://127.0.0.1:1')).toBeUndefined();
  });

  it("writes the Node's IPv4 pod CIDR as the bridge's subnet, once", () => {
    expect(applyPodCidrToBridge(path, ['10.244.3.0/24', 'fd00::/64'])).toBe('updated');
    expect(subnet()).toEqual([[{ subnet: '10.244.3.0/24' }]]);
    expect(applyPodCidrToBridge(path, ['10.244.3.0/24'])).toBe('unchanged');
    // Another plugin's settings are kept.
    expect((JSON.parse(readFileSync(path, 'utf8')) as { plugins: { type: string; bridge?: string }[] }).plugins[0]).toMatchObject({ type: 'bridge', bridge: 'svcb0' });
  });

  it('keeps its range when the Node has no IPv4 CIDR', () => {
    expect(applyPodCidrToBridge(path, ['fd00:1::/64'])).toBe('no-ipv4');
    expect(subnet()).toEqual([[{ subnet: '10.244.3.0/24' }]]);
  });
});
