import { familyBits, formatIp, parseIp, type IpNumber } from './ip-address.js';

/** A CIDR block: its first address (host bits cleared) and its prefix length. */
export interface Cidr {
  readonly family: 4 | 6;
  readonly base: bigint;
  readonly prefix: number;
}

/** Parses `a.b.c.d/n` or `x::/n`; host bits are cleared (as Go's net.ParseCIDR's network). Undefined when it is not a CIDR. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIp(text.slice(0, slash));
  const bits = text.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  const total = familyBits(ip.family);
  if (prefix > total) return undefined;
  return { family: ip.family, base: ip.value & mask(total, prefix), prefix };
}

const mask = (total: number, prefix: number): bigint => ((1n << BigInt(total)) - 1n) ^ ((1n << BigInt(total - prefix)) - 1n);

export const formatCidr = (cidr: Cidr): string => `${formatIp({ family: cidr.family, value: cidr.base } satisfies IpNumber)}/${cidr.prefix}`;

/** Whether two blocks share an address (same family, and one holds the other's base). */
export function overlaps(a: Cidr, b: Cidr): boolean {
  if (a.family !== b.family) return false;
  const prefix = Math.min(a.prefix, b.prefix);
  const m = mask(familyBits(a.family), prefix);
  return (a.base & m) === (b.base & m);
}

/** Whether `inner` lies wholly in `outer`. */
export const contains = (outer: Cidr, inner: Cidr): boolean => outer.family === inner.family && inner.prefix >= outer.prefix && overlaps(outer, inner);
