import { sign as signBytes, verify as verifyBytes, type KeyObject } from 'node:crypto';

/**
 * Compact JWS (RFC 7515) with the algorithms service-account keys use, on node:crypto alone.
 * Parsing is strict: three base64url segments, a JSON object header naming a known `alg` (never
 * `none`), a JSON object payload. Every failure is a `JwtError` whose `code` says which rule broke,
 * so callers decide what each means without matching message text.
 */

export type JwsAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'ES256' | 'ES384' | 'ES512';

export type JwtErrorCode = 'Malformed' | 'UnsupportedAlgorithm' | 'BadSignature';

export class JwtError extends Error {
  constructor(
    readonly code: JwtErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'JwtError';
  }
}

/** A JWS whose segments parsed; its signature is not checked yet. */
export interface ParsedJws {
  readonly header: Readonly<Record<string, unknown>>;
  readonly alg: JwsAlgorithm;
  readonly kid: string | undefined;
  readonly payload: Readonly<Record<string, unknown>>;
  /** `<header>.<payload>` as sent: the bytes the signature covers. */
  readonly signingInput: string;
  readonly signature: Buffer;
}

interface AlgorithmSpec {
  readonly hash: 'sha256' | 'sha384' | 'sha512';
  readonly keyType: 'rsa' | 'ec';
  /** The EC curve the algorithm is defined for (RFC 7518 §3.4). */
  readonly curve?: 'prime256v1' | 'secp384r1' | 'secp521r1';
}

const ALGORITHMS: Readonly<Record<JwsAlgorithm, AlgorithmSpec>> = {
  RS256: { hash: 'sha256', keyType: 'rsa' },
  RS384: { hash: 'sha384', keyType: 'rsa' },
  RS512: { hash: 'sha512', keyType: 'rsa' },
  ES256: { hash: 'sha256', keyType: 'ec', curve: 'prime256v1' },
  ES384: { hash: 'sha384', keyType: 'ec', curve: 'secp384r1' },
  ES512: { hash: 'sha512', keyType: 'ec', curve: 'secp521r1' },
};

/** Strict base64url: the alphabet, no padding, and no length that cannot come from whole bytes. */
const BASE64URL = /^[A-Za-z0-9_-]*$/;

function decodeSegment(segment: string, what: string): Buffer {
  if (!BASE64URL.test(segment) || segment.length % 4 === 1) throw new JwtError('Malformed', `the ${what} is not base64url`);
  return Buffer.from(segment, 'base64url');
}

function decodeJsonObject(segment: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(decodeSegment(segment, what).toString('utf8'));
  } catch (error) {
    if (error instanceof JwtError) throw error;
    throw new JwtError('Malformed', `the ${what} is not JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new JwtError('Malformed', `the ${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

export function isJwsAlgorithm(alg: unknown): alg is JwsAlgorithm {
  return typeof alg === 'string' && Object.hasOwn(ALGORITHMS, alg);
}

/** Splits and decodes a compact JWS. Throws `JwtError` (Malformed, UnsupportedAlgorithm). */
export function parseJws(token: string): ParsedJws {
  const parts = token.split('.');
  if (parts.length !== 3) throw new JwtError('Malformed', `a JWS has 3 segments, this has ${parts.length}`);
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJsonObject(h, 'header');
  const alg = header['alg'];
  if (!isJwsAlgorithm(alg)) throw new JwtError('UnsupportedAlgorithm', `alg ${JSON.stringify(alg)} is not accepted`);
  // `crit` names extensions the verifier must understand (RFC 7515 §4.1.11): we understand none.
  if (header['crit'] !== undefined) throw new JwtError('Malformed', 'the header has critical extensions');
  const kid = header['kid'];
  if (kid !== undefined && typeof kid !== 'string') throw new JwtError('Malformed', 'kid is not a string');
  const payload = decodeJsonObject(p, 'payload');
  const signature = decodeSegment(s, 'signature');
  if (signature.length === 0) throw new JwtError('Malformed', 'the signature is empty');
  return { header, alg, kid, payload, signingInput: `${h}.${p}`, signature };
}

/** The algorithm a key signs with by default: RS256 for RSA, ES256/384/512 by EC curve. */
export function algorithmForKey(key: KeyObject): JwsAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    throw new Error(`EC keys on curve ${String(curve)} cannot sign JWTs (use P-256, P-384 or P-521)`);
  }
  throw new Error(`${String(key.asymmetricKeyType)} keys cannot sign service-account tokens (use RSA or ECDSA)`);
}

/** Whether `key` can check signatures of `alg` (key type and, for EC, curve must fit). */
export function keyFitsAlgorithm(key: KeyObject, alg: JwsAlgorithm): boolean {
  const spec = ALGORITHMS[alg];
  if (key.asymmetricKeyType !== spec.keyType) return false;
  return spec.curve === undefined || key.asymmetricKeyDetails?.namedCurve === spec.curve;
}

/** Checks the signature of a parsed JWS with `key`. Throws `JwtError` (BadSignature). */
export function verifyJws(jws: ParsedJws, key: KeyObject): void {
  const spec = ALGORITHMS[jws.alg];
  if (!keyFitsAlgorithm(key, jws.alg)) throw new JwtError('BadSignature', `the key cannot check ${jws.alg} signatures`);
  let ok: boolean;
  try {
    // JWS carries ECDSA signatures as r‖s (IEEE P1363), not DER.
    ok = verifyBytes(spec.hash, Buffer.from(jws.signingInput), spec.keyType === 'ec' ? { key, dsaEncoding: 'ieee-p1363' } : key, jws.signature);
  } catch {
    ok = false;
  }
  if (!ok) throw new JwtError('BadSignature', 'the signature does not verify');
}

/** Signs `payload` as a compact JWS with `key` (private) under `alg`. */
export function signJws(payload: Readonly<Record<string, unknown>>, key: KeyObject, alg: JwsAlgorithm, kid?: string): string {
  const spec = ALGORITHMS[alg];
  const header = kid === undefined ? { alg, typ: 'JWT' } : { alg, kid, typ: 'JWT' };
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  const signature = signBytes(spec.hash, Buffer.from(input), spec.keyType === 'ec' ? { key, dsaEncoding: 'ieee-p1363' } : key);
  return `${input}.${signature.toString('base64url')}`;
}
