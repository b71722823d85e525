import { isIP } from 'node:net';

/**
 * A service CIDR (`--service-cluster-ip-range`), IPv4 or IPv6, read once: its network address as
 * a bigint and its size. The first usable address is the `kubernetes` Service's, as upstream.
 */
export interface ServiceCidr {
  readonly family: 4 | 6;
  readonly base: bigint;
  readonly prefix: number;
}

/** The first CIDR of `--service-cluster-ip-range` (`10.0.0.0/24` or `10.0.0.0/24,fd00::/108`), its primary family. */
export function parseServiceCidr(ranges: string): ServiceCidr {
  const cidr = ranges.split(',')[0]!.trim();
  const [address = '', bits = ''] = cidr.split('/');
  const family = isIP(address);
  const prefix = Number(bits);
  if ((family !== 4 && family !== 6) || !/^\d+$/.test(bits) || prefix > (family === 4 ? 30 : 126)) {
    throw new Error(`${JSON.stringify(cidr)} is not a service CIDR`);
  }
  const width = family === 4 ? 32 : 128;
  const mask = ((1n << BigInt(prefix)) - 1n) << BigInt(width - prefix);
  return { family, base: toBigint(address, family) & mask, prefix };
}

/** The first address after the network address: `10.43.0.0/16` → `10.43.0.1`. */
export function firstServiceIp(cidr: string): string {
  const parsed = parseServiceCidr(cidr);
  return fromBigint(parsed.base + 1n, parsed.family);
}

/** The `n`th address of the range (`10.43.0.0/16`, 10 → `10.43.0.10`, the DNS Service's by convention). */
export function serviceIpAt(cidr: string, n: number): string {
  const parsed = parseServiceCidr(cidr);
  return fromBigint(parsed.base + BigInt(n), parsed.family);
}

function toBigint(address: string, family: 4 | 6): bigint {
  if (family === 4) return address.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
  const [head = '', tail = ''] = address.includes('::') ? address.split('::') : [address, ''];
  const groups = (s: string) => (s ? s.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function fromBigint(value: bigint, family: 4 | 6): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((value >> shift) & 0xffffn).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}
