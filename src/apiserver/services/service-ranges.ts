import { isIP } from 'node:net';

/** One family's range of Service cluster IPs (`--service-cluster-ip-range`). */
export interface ClusterIpRange {
  readonly family: 'IPv4' | 'IPv6';
  readonly cidr: string;
  /** The network address as a number. */
  readonly base: bigint;
  /** Addresses in the CIDR, the network (and IPv4 broadcast) address included. */
  readonly size: bigint;
}

/** The NodePort range (`--service-node-port-range`): `base` to `base + size - 1`. */
export interface NodePortRange {
  readonly base: number;
  readonly size: number;
  readonly text: string;
}

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';

export function ipToBigInt(ip: string): bigint {
  if (isIP(ip) === 4) return ip.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
  const [head = '', tail] = ip.split('::');
  const groups = (text: string) => (text === '' ? [] : text.split(':'));
  let parts = groups(head);
  if (tail !== undefined) parts = [...parts, ...Array<string>(8 - parts.length - groups(tail).length).fill('0'), ...groups(tail)];
  return parts.reduce((n, part) => (n << 16n) | BigInt(parseInt(part, 16)), 0n);
}

export function bigIntToIp(value: bigint, family: 'IPv4' | 'IPv6'): string {
  if (family === 'IPv4') return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
  const parts = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => ((value >> shift) & 0xffffn).toString(16));
  // The canonical text: the longest run of zero groups (two or more) becomes '::'.
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (parts[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && parts[j] === '0') j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j;
  }
  if (best < 0) return parts.join(':');
  return `${parts.slice(0, best).join(':')}::${parts.slice(best + bestLength).join(':')}`;
}

/** The canonical text of an IP (as Go prints it), or undefined when it is none. */
export function canonicalIp(ip: string): string | undefined {
  const family = isIP(ip);
  if (family === 0) return undefined;
  return bigIntToIp(ipToBigInt(ip), family === 4 ? 'IPv4' : 'IPv6');
}

/** `10.0.0.0/24` or `10.0.0.0/24,fd00::/108`: one range per family. Throws RangeError naming what is wrong. */
export function parseClusterIpRanges(text: string): ClusterIpRange[] {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length > 2) throw new RangeError('at most two CIDRs (one IPv4, one IPv6)');
  const ranges = parts.map((cidr): ClusterIpRange => {
    const [ip = '', bitsText, extra] = cidr.split('/');
    const version = isIP(ip);
    const width = version === 4 ? 32 : 128;
    if (version === 0 || bitsText === undefined || extra !== undefined || !/^\d+$/.test(bitsText) || Number(bitsText) > width) throw new RangeError(`${JSON.stringify(cidr)} is not a CIDR`);
    const bits = Number(bitsText);
    // Kubernetes: an IPv4 range needs room for a few Services (/30 at least); IPv6 at most 20 bits of host part is used.
    if (width - bits < 2) throw new RangeError(`${JSON.stringify(cidr)} is too small: at least 2 host bits`);
    const size = 1n << BigInt(width - bits);
    const base = (ipToBigInt(ip) >> BigInt(width - bits)) << BigInt(width - bits);
    return { family: version === 4 ? 'IPv4' : 'IPv6', cidr: `${bigIntToIp(base, version === 4 ? 'IPv4' : 'IPv6')}/${bits}`, base, size };
  });
  if (ranges.length === 2 && ranges[0]!.family === ranges[1]!.family) throw new RangeError('a dual-stack pair needs one IPv4 and one IPv6 CIDR');
  return ranges;
}

/** `30000-32767` (or `30000+2767`). Throws RangeError. */
export function parseNodePortRange(text: string): NodePortRange {
  const match = /^(\d+)(?:([-+])(\d+))?$/.exec(text.trim());
  if (!match) throw new RangeError(`${JSON.stringify(text)} is not a port range (low-high)`);
  const low = Number(match[1]);
  const size = match[2] === undefined ? 1 : match[2] === '+' ? Number(match[3]) + 1 : Number(match[3]) - low + 1;
  if (low < 1 || size < 1 || low + size - 1 > 65535) throw new RangeError(`${JSON.stringify(text)} is not a port range within 1-65535`);
  return { base: low, size, text: `${low}-${low + size - 1}` };
}

/** Whether `ip` is a usable address of the range: inside it, neither the network address nor (IPv4) the broadcast one. */
export function inClusterIpRange(range: ClusterIpRange, ip: string): boolean {
  const version = isIP(ip);
  if (version === 0 || (version === 4 ? 'IPv4' : 'IPv6') !== range.family) return false;
  const offset = ipToBigInt(ip) - range.base;
  const last = range.family === 'IPv4' ? range.size - 1n : range.size;
  return offset > 0n && offset < last;
}
