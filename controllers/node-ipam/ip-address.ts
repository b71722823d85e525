import { isIP } from 'node:net';

/** An IP address as a number, with its family: the arithmetic CIDR allocation needs. */
export interface IpNumber {
  readonly family: 4 | 6;
  readonly value: bigint;
}

export const familyBits = (family: 4 | 6): number => (family === 4 ? 32 : 128);

/** Parses a dotted IPv4 or a (possibly compressed) IPv6 address; undefined when it is neither. */
export function parseIp(text: string): IpNumber | undefined {
  const family = isIP(text);
  if (family === 4) return { family: 4, value: text.split('.').reduce((n, octet) => (n << 8n) | BigInt(Number(octet)), 0n) };
  if (family !== 6) return undefined;
  let groups: string[];
  // An IPv4 tail (::ffff:1.2.3.4) becomes two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  const body = v4 ? text.slice(0, -v4[1]!.length) + ipv4Groups(v4[1]!) : text;
  const [head, tail] = body.split('::') as [string, string | undefined];
  const h = head === '' ? [] : head.split(':');
  if (tail === undefined) groups = h;
  else {
    const t = tail === '' ? [] : tail.split(':');
    groups = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  }
  return { family: 6, value: groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n) };
}

const ipv4Groups = (v4: string): string => {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
};

/** The canonical text of an address: dotted IPv4; IPv6 lowercase with the longest run of zero groups (two or more) as `::`. */
export function formatIp(ip: IpNumber): string {
  if (ip.family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt((7 - i) * 16)) & 0xffffn));
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}
