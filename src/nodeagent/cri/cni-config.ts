/**
 * The CNI network a node gives its pods when nothing else provides one: a Linux bridge with
 * host-local addresses from the node's pod CIDR, port mappings, and loopback inside the pod.
 * The runtime (containerd's CRI plugin) reads the generated conflist from its CNI conf dir.
 */

export interface BridgeNetworkOptions {
  /** Network name; also names host-local's allocation directory. */
  readonly name: string;
  /** Linux bridge device, at most 15 characters. */
  readonly bridge: string;
  /** IPv4 pod CIDR, e.g. `10.88.0.0/24`; the bridge takes the first address as the gateway. */
  readonly podCidr: string;
  /** Where host-local records allocated addresses (default `/var/lib/cni/networks`). */
  readonly ipamDataDir?: string;
  /** Masquerade pod traffic leaving the node (default false: it adds host iptables rules). */
  readonly ipMasq?: boolean;
  readonly mtu?: number;
}

export interface CniConflist {
  readonly cniVersion: string;
  readonly name: string;
  readonly plugins: readonly Record<string, unknown>[];
}

/** Validates the subset of CIDR syntax the bridge network accepts: IPv4, prefix /8 to /30. */
export function parseIpv4Cidr(cidr: string): { readonly address: string; readonly prefix: number } {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  const octets = match?.slice(1, 5).map(Number);
  const prefix = Number(match?.[5]);
  if (!match || !octets || octets.some((o) => o > 255) || prefix < 8 || prefix > 30) {
    throw new Error(`pod CIDR "${cidr}" is not an IPv4 CIDR with a prefix between /8 and /30`);
  }
  return { address: octets.join('.'), prefix };
}

export function bridgeConflist(options: BridgeNetworkOptions): CniConflist {
  parseIpv4Cidr(options.podCidr);
  if (options.bridge.length === 0 || options.bridge.length > 15) throw new Error(`bridge name "${options.bridge}" must have 1 to 15 characters`);
  return {
    cniVersion: '1.0.0',
    name: options.name,
    plugins: [
      {
        type: 'bridge',
        bridge: options.bridge,
        isGateway: true,
        ipMasq: options.ipMasq ?? false,
        hairpinMode: true,
        ...(options.mtu ? { mtu: options.mtu } : {}),
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: options.podCidr }]],
          routes: [{ dst: '0.0.0.0/0' }],
          ...(options.ipamDataDir ? { dataDir: options.ipamDataDir } : {}),
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
      { type: 'loopback' },
    ],
  };
}
