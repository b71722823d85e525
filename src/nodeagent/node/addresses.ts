import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { badRequest } from '../../api/index.js';

/** One entry of status.addresses. */
export interface NodeAddress {
  readonly type: 'InternalIP' | 'Hostname';
  readonly address: string;
}

/** What address discovery reads; the defaults read this machine. */
export interface AddressSources {
  /** /proc/net/route's text (IPv4 routes). */
  readonly ipv4Routes?: () => string;
  /** /proc/net/ipv6_route's text. */
  readonly ipv6Routes?: () => string;
  readonly interfaces?: () => NodeJS.Dict<NetworkInterfaceInfo[]>;
}

const readOr = (path: string) => () => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** The interfaces of the default routes of one family, lowest metric first. */
function defaultRouteInterfaces(family: 4 | 6, sources: AddressSources): string[] {
  const routes: { iface: string; metric: number }[] = [];
  if (family === 4) {
    // Iface Destination Gateway Flags RefCnt Use Metric Mask ...: hex fields; flag 0x1 is "up".
    for (const line of (sources.ipv4Routes ?? readOr('/proc/net/route'))().split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 8 || f[1] !== '00000000' || f[7] !== '00000000' || (parseInt(f[3]!, 16) & 1) === 0) continue;
      routes.push({ iface: f[0]!, metric: Number(f[6]) });
    }
  } else {
    // dest prefix src srcprefix nexthop metric refcnt use flags iface; a default route has a ::/0 destination.
    for (const line of (sources.ipv6Routes ?? readOr('/proc/net/ipv6_route'))().split('\n')) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !/^0{32}$/.test(f[0]!) || f[1] !== '00' || f[9] === 'lo' || (parseInt(f[8]!, 16) & 1) === 0) continue;
      routes.push({ iface: f[9]!, metric: parseInt(f[5]!, 16) });
    }
  }
  return routes.sort((a, b) => a.metric - b.metric).map((r) => r.iface);
}

/** The source address of the default route of `family`: the first global address of its interface. */
export function defaultRouteAddress(family: 4 | 6, sources: AddressSources = {}): string | undefined {
  const interfaces = (sources.interfaces ?? networkInterfaces)();
  for (const name of defaultRouteInterfaces(family, sources)) {
    const found = (interfaces[name] ?? []).find((a) => a.family === `IPv${family}` && !a.internal && !a.address.startsWith('fe80:'));
    if (found) return found.address;
  }
  return undefined;
}

/**
 * The node's InternalIPs: `--node-ip` as given (each must be an address of this host, as the
 * kubelet checks), else the default IPv4 route's source address, else IPv6's. `0.0.0.0` and `::`
 * ask for the default route of their family (`::` falls back to IPv4).
 */
export function internalIps(nodeIp: string | undefined, sources: AddressSources = {}): string[] {
  const given = (nodeIp ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unspecified = given.length === 0 || (given.length === 1 && (given[0] === '0.0.0.0' || given[0] === '::'));
  if (unspecified) {
    const order: (4 | 6)[] = given[0] === '::' ? [6, 4] : [4, 6];
    for (const family of order) {
      const address = defaultRouteAddress(family, sources);
      if (address !== undefined) return [address];
    }
    throw badRequest('--node-ip: this host has no default route to take the node IP from; set --node-ip');
  }
  const local = new Set(Object.values((sources.interfaces ?? networkInterfaces)()).flatMap((list) => (list ?? []).map((a) => a.address)));
  for (const ip of given) {
    if (isIP(ip) === 0) throw badRequest(`--node-ip: ${JSON.stringify(ip)} is not an IP address`);
    if (!local.has(ip)) throw badRequest(`--node-ip: ${ip} is not an address of this host's network interfaces`);
  }
  return given;
}

/** status.addresses: the InternalIPs, then the Hostname, as a kubelet without a cloud provider reports them. */
export function nodeAddresses(ips: readonly string[], hostname: string): NodeAddress[] {
  return [...ips.map((address) => ({ type: 'InternalIP' as const, address })), { type: 'Hostname', address: hostname }];
}
