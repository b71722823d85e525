import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseIpv4Cidr, type CniConflist } from './cni-config.js';

/** The bridge conflist svc writes into its own containerd's CNI conf dir (`net.d/` beside the socket). */
export const BRIDGE_CONFLIST = '10-svc-bridge.conflist';

/** Where the bridge conflist of the containerd behind `endpoint` is, when it is one svc started (unix://<dir>/containerd.sock). */
export function bridgeConflistPath(endpoint: string): string | undefined {
  if (!endpoint.startsWith('unix://')) return undefined;
  const path = join(dirname(endpoint.slice('unix://'.length)), 'net.d', BRIDGE_CONFLIST);
  return existsSync(path) ? path : undefined;
}

/**
 * Points the bridge network at the node's pod CIDR (the node-ipam controller's `spec.podCIDRs`):
 * the IPv4 one replaces the bridge's host-local subnet in the conflist, written atomically (a
 * rename), which containerd picks up from its conf dir for the pods it starts next. Returns what
 * it did: `unchanged` when the conflist already has that subnet, `no-ipv4` when the node has no
 * IPv4 CIDR the bridge can use (it keeps its own). Throws when the file is not svc's bridge conflist.
 */
export function applyPodCidrToBridge(path: string, podCidrs: readonly string[]): 'updated' | 'unchanged' | 'no-ipv4' {
  const cidr = podCidrs.find((c) => {
    try {
      parseIpv4Cidr(c);
      return true;
    } catch {
      return false;
    }
  });
  if (cidr === undefined) return 'no-ipv4';
  const conflist = JSON.parse(readFileSync(path, 'utf8')) as CniConflist;
  const bridge = conflist.plugins.find((p) => p['type'] === 'bridge') as { ipam?: { ranges?: { subnet: string }[][] } } | undefined;
  const ranges = bridge?.ipam?.ranges;
  if (!ranges) throw new Error(`${path} is not svc's bridge network (no bridge plugin with host-local ranges)`);
  if (ranges.length === 1 && ranges[0]!.length === 1 && ranges[0]![0]!.subnet === cidr) return 'unchanged';
  bridge.ipam!.ranges = [[{ subnet: cidr }]];
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, JSON.stringify(conflist, null, 2));
  renameSync(temporary, path);
  return 'updated';
}
