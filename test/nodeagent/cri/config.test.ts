/** The generated containerd config and CNI network, and the CRI wire conversions. */
import { describe, expect, it } from 'vitest';
import { bridgeConflist, containerdConfig, grpcTarget, parseIpv4Cidr } from '../../../src/nodeagent/index.js';
import { decodeMessage, encodeMessage, messageType } from '../../../src/nodeagent/cri/wire.js';
import type { ContainerStatusResponse, ExecSyncResponse } from '../../../src/nodeagent/index.js';

describe('bridge CNI conflist', () => {
  const conflist = bridgeConflist({ name: 'pods', bridge: 'svcbr0', podCidr: '10.244.3.0/24', ipamDataDir: '/tmp/ipam' });

  it('chains bridge (host-local IPAM on the pod CIDR), portmap and loopback', () => {
    expect(conflist.plugins.map((p) => p.type)).toEqual(['bridge', 'portmap', 'loopback']);
    expect(conflist.plugins[0]).toMatchObject({
      bridge: 'svcbr0',
      isGateway: true,
      ipMasq: false,
      ipam: { type: 'host-local', ranges: [[{ subnet: '10.244.3.0/24' }]], dataDir: '/tmp/ipam' },
    });
    expect(conflist.plugins[1]).toMatchObject({ capabilities: { portMappings: true } });
  });

  it.each(['10.244.3.0', '10.244.3.0/31', '300.1.1.0/24', 'fd00::/64', ''])('rejects pod CIDR %j', (cidr) => {
    expect(() => bridgeConflist({ name: 'pods', bridge: 'svcbr0', podCidr: cidr })).toThrow(/pod CIDR/);
  });

  it('rejects a bridge name Linux cannot hold', () => {
    expect(() => bridgeConflist({ name: 'pods', bridge: 'a-very-long-bridge-name', podCidr: '10.0.0.0/24' })).toThrow(/bridge name/);
  });

  it('parses the CIDR it accepts', () => {
    expect(parseIpv4Cidr('10.1.2.0/16')).toEqual({ address: '10.1.2.0', prefix: 16 });
  });
});

describe('containerd config', () => {
  const toml = containerdConfig({
    root: '/r',
    state: '/s',
    address: '/s/c.sock',
    sandboxImage: 'svc.local/pause:3.10',
    snapshotter: 'native',
    cniConfDir: '/c/net.d',
    cniBinDir: '/usr/lib/cni',
  });

  it('points root, state and socket at the given directories', () => {
    expect(toml).toMatch(/^root = "\/r"$/m);
    expect(toml).toMatch(/^state = "\/s"$/m);
    expect(toml).toMatch(/^\[grpc\]\n {2}address = "\/s\/c.sock"$/m);
  });

  it('sets the CRI plugin up for an unprivileged VM: clamped oom_score_adj, cgroupfs, any free stream port', () => {
    expect(toml).toContain('restrict_oom_score_adj = true');
    expect(toml).toContain('SystemdCgroup = false');
    expect(toml).toContain('stream_server_port = "0"');
    expect(toml).toContain('sandbox_image = "svc.local/pause:3.10"');
    expect(toml).toContain('snapshotter = "native"');
    expect(toml).toMatch(/bin_dir = "\/usr\/lib\/cni"\n {2}conf_dir = "\/c\/net.d"/);
  });

  it('keeps network namespaces host-wide unless asked to mount them under the state dir', () => {
    expect(toml).toContain('netns_mounts_under_state_dir = false');
    const own = containerdConfig({ root: '/r', state: '/s', address: '/s/c', sandboxImage: 'p', snapshotter: 'native', cniConfDir: '/c', cniBinDir: '/b', netnsUnderStateDir: true });
    expect(own).toContain('netns_mounts_under_state_dir = true');
  });

  it('escapes paths as TOML strings', () => {
    const odd = containerdConfig({ root: '/a "b"', state: '/s', address: '/s/c', sandboxImage: 'p', snapshotter: 'overlayfs', cniConfDir: '/c', cniBinDir: '/b' });
    expect(odd).toContain('root = "/a \\"b\\""');
  });
});

describe('CRI endpoints', () => {
  it.each([
    ['/run/containerd/containerd.sock', 'unix:///run/containerd/containerd.sock'],
    ['unix:///run/containerd/containerd.sock', 'unix:///run/containerd/containerd.sock'],
    ['unix:/run/x.sock', 'unix:///run/x.sock'],
    ['127.0.0.1:5000', '127.0.0.1:5000'],
  ])('%s dials %s', (endpoint, target) => {
    expect(grpcTarget(endpoint)).toBe(target);
  });
});

describe('CRI wire conversions', () => {
  it('decode 64-bit integers as bigint, enums as names, and fill absent fields with defaults', () => {
    const type = messageType('ContainerStatusResponse');
    const bytes = encodeMessage(type, { status: { id: 'c1', state: 'CONTAINER_RUNNING', createdAt: 1_763_000_000_123_456_789n, labels: { a: 'b' } } });
    const decoded = decodeMessage<ContainerStatusResponse>(type, bytes);
    expect(decoded.status?.createdAt).toBe(1_763_000_000_123_456_789n);
    expect(decoded.status?.finishedAt).toBe(0n);
    expect(decoded.status?.state).toBe('CONTAINER_RUNNING');
    expect(decoded.status?.labels).toEqual({ a: 'b' });
    expect(decoded.status?.mounts).toEqual([]);
    expect(decoded.status?.metadata).toBeNull();
    expect(decoded.info).toEqual({});
  });

  it('carry bytes through unchanged', () => {
    const type = messageType('ExecSyncResponse');
    const decoded = decodeMessage<ExecSyncResponse>(type, encodeMessage(type, { stdout: Buffer.from([0, 255, 10]), exitCode: -1 }));
    expect(Buffer.from(decoded.stdout)).toEqual(Buffer.from([0, 255, 10]));
    expect(decoded.stderr.length).toBe(0);
    expect(decoded.exitCode).toBe(-1);
  });

  it('use the published field numbers (RunPodSandboxRequest.runtime_handler is field 2)', () => {
    const bytes = encodeMessage(messageType('RunPodSandboxRequest'), { runtimeHandler: 'runc' });
    // tag = (2 << 3) | 2 (length-delimited), then the length, then the string.
    expect([...bytes]).toEqual([0x12, 4, ...Buffer.from('runc')]);
  });
});
