/**
 * Self-signed X.509 serving certificates, written as DER by hand: the one shape of certificate the
 * node agent and the daemons' health ports make for themselves (a P-256 key, ECDSA with SHA-256,
 * serverAuth, names in subjectAltName). An X.509 library costs a daemon ~3 MB of heap for the
 * rest of its life to write these few hundred bytes once; Node's crypto makes the key and the
 * signature, and parses the result (`X509Certificate`) wherever one is read back.
 *
 * Structure and object identifiers are those of RFC 5280; DER's rules are X.690's.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { badRequest, validateName } from '../api/index.js';

export interface SelfSignedRequest {
  /** The subject's (and issuer's) common name. */
  readonly commonName: string;
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
}

/** A certificate and its private key, both PEM (the key PKCS #8), each ending in a newline. */
export interface PemPair {
  readonly cert: string;
  readonly key: string;
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

/** Identifier octets: universal primitive, universal constructed, and context-specific tags. */
const TAG = { boolean: 0x01, integer: 0x02, bitString: 0x03, octetString: 0x04, oid: 0x06, utf8String: 0x0c, utcTime: 0x17, generalizedTime: 0x18, sequence: 0x30, set: 0x31 } as const;
const explicit = (n: number) => 0xa0 + n;
const implicitPrimitive = (n: number) => 0x80 + n;

/** One type-length-value; lengths over 127 take the long form (X.690 8.1.3.5). */
function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  const n = body.length;
  let length: number[];
  if (n < 0x80) length = [n];
  else if (n < 0x100) length = [0x81, n];
  else if (n < 0x10000) length = [0x82, n >> 8, n & 0xff];
  else length = [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}

const sequence = (...items: Buffer[]) => tlv(TAG.sequence, ...items);

function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const bytes: number[] = [arcs[0]! * 40 + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    // Base 128, most significant group first, every group but the last with its high bit set.
    const groups = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) groups.unshift((rest & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(TAG.oid, Buffer.from(bytes));
}

/** X.509 wants UTCTime through 2049 and GeneralizedTime after (RFC 5280 4.1.2.5), to the second, in UTC. */
function time(at: Date): Buffer {
  const digits = at.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  const year = at.getUTCFullYear();
  return year >= 1950 && year < 2050 ? tlv(TAG.utcTime, Buffer.from(digits.slice(2), 'ascii')) : tlv(TAG.generalizedTime, Buffer.from(digits, 'ascii'));
}

/** An address as subjectAltName's iPAddress holds it: 4 or 16 octets. */
function ipOctets(address: string): Buffer {
  if (isIPv4(address)) return Buffer.from(address.split('.').map(Number));
  if (!isIPv6(address)) throw badRequest(`${JSON.stringify(address)} is not an IP address`);
  let text = address.split('%')[0]!;
  // An IPv4 tail (::ffff:10.0.0.1) becomes the last two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  groups.forEach((group, i) => out.writeUInt16BE(parseInt(group, 16), i * 2));
  return out;
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [tlv(TAG.boolean, Buffer.from([0xff]))] : []), tlv(TAG.octetString, value));
}

const pem = (label: string, der: Buffer) => `-----BEGIN ${label}-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;

/**
 * A new P-256 key and a certificate for it, signed by itself: version 3, a random positive 64-bit
 * serial, key usage digitalSignature and keyEncipherment (critical), extended key usage
 * serverAuth, and the DNS names and IP addresses given as subjectAltName.
 */
export function selfSignedCertificate(request: SelfSignedRequest): PemPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serial = randomBytes(8);
  // Positive, and minimal: no leading zero octet is then needed or allowed.
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const name = sequence(tlv(TAG.set, sequence(oid(OID.commonName), tlv(TAG.utf8String, Buffer.from(request.commonName, 'utf8')))));
  // A dNSName is an IA5String: a name outside RFC 1123 (a non-ASCII host name, say) is refused,
  // not written as mangled bytes.
  for (const dns of request.dnsNames ?? []) {
    const problems = validateName(dns, 'subdomain');
    if (problems.length > 0) throw badRequest(`${JSON.stringify(dns)} cannot be a certificate's DNS name: ${problems.join('; ')}`);
  }
  const altNames = [
    ...(request.dnsNames ?? []).map((dns) => tlv(implicitPrimitive(2), Buffer.from(dns, 'ascii'))),
    ...(request.ipAddresses ?? []).map((ip) => tlv(implicitPrimitive(7), ipOctets(ip))),
  ];
  const extensions = [
    // Named bits 0 (digitalSignature) and 2 (keyEncipherment): one octet 1010 0000, five unused bits.
    extension(OID.keyUsage, true, tlv(TAG.bitString, Buffer.from([0x05, 0xa0]))),
    extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth))),
    ...(altNames.length > 0 ? [extension(OID.subjectAltName, false, sequence(...altNames))] : []),
  ];
  const tbs = sequence(
    tlv(explicit(0), tlv(TAG.integer, Buffer.from([2]))),
    tlv(TAG.integer, serial),
    algorithm,
    name,
    sequence(time(request.notBefore), time(request.notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(explicit(3), sequence(...extensions)),
  );
  // Node's ECDSA signature is already the DER SEQUENCE { r, s } X.509 carries.
  const signature = sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, algorithm, tlv(TAG.bitString, Buffer.from([0]), signature));
  return { cert: pem('CERTIFICATE', certificate), key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
