import { createHash, createPrivateKey, createPublicKey, generateKeyPair, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { readOptional, writePrivateFile } from '../../pki/index.js';
import { algorithmForKey } from './jwt.js';

/**
 * Service-account keys: the public keys tokens are checked with (`--service-account-key-file`,
 * each file a PEM bundle of public keys, certificates or private keys) and the private key the
 * server signs with (`--service-account-signing-key-file`, or one it generates in the data dir).
 */

/** A public key that may verify tokens, with its key id. */
export interface VerificationKey {
  /** base64url SHA-256 of the key's DER SubjectPublicKeyInfo, the key id Kubernetes puts in `kid`. */
  readonly kid: string;
  readonly key: KeyObject;
}

export interface SigningKey {
  readonly kid: string;
  readonly key: KeyObject;
  readonly publicKey: KeyObject;
}

/** The `kid` of a public key: who holds the key can compute it, and it changes with the key. */
export function keyId(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;

/**
 * The public keys in a PEM text: `PUBLIC KEY`, `RSA PUBLIC KEY`, `CERTIFICATE` (its key) and the
 * private kinds (their public half), in file order. `source` names the text in errors.
 */
export function publicKeysFromPem(text: string, source: string): VerificationKey[] {
  const keys: VerificationKey[] = [];
  for (const match of text.matchAll(PEM_BLOCK)) {
    const [pem, label] = match as unknown as [string, string];
    let key: KeyObject;
    try {
      if (label === 'CERTIFICATE') key = new X509Certificate(pem).publicKey;
      else if (label.endsWith('PRIVATE KEY')) key = createPublicKey(createPrivateKey(pem));
      else if (label.endsWith('PUBLIC KEY')) key = createPublicKey(pem);
      else continue; // parameters and other blocks carry no key
    } catch (error) {
      throw new Error(`${source}: the ${label} block cannot be read (${(error as Error).message})`);
    }
    if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'ec') {
      throw new Error(`${source}: ${String(key.asymmetricKeyType)} keys cannot check service-account tokens (use RSA or ECDSA)`);
    }
    keys.push({ kid: keyId(key), key });
  }
  if (keys.length === 0) throw new Error(`${source}: no PEM public key, certificate or private key found`);
  return keys;
}

async function readFlagFile(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`${flag} ${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** Reads every `--service-account-key-file`. */
export async function readVerificationKeys(paths: readonly string[]): Promise<VerificationKey[]> {
  const keys: VerificationKey[] = [];
  for (const path of paths) keys.push(...publicKeysFromPem(await readFlagFile(path, '--service-account-key-file'), `--service-account-key-file ${path}`));
  return keys;
}

/** Parses a PEM private key for signing, refusing kinds that cannot sign JWTs. */
export function signingKeyFromPem(text: string, source: string): SigningKey {
  let key: KeyObject;
  try {
    key = createPrivateKey(text);
  } catch (error) {
    throw new Error(`${source}: not a PEM private key (${(error as Error).message})`);
  }
  try {
    algorithmForKey(key);
  } catch (error) {
    throw new Error(`${source}: ${(error as Error).message}`);
  }
  const publicKey = createPublicKey(key);
  return { kid: keyId(publicKey), key, publicKey };
}

/** Reads `--service-account-signing-key-file`. */
export async function readSigningKey(path: string): Promise<SigningKey> {
  return signingKeyFromPem(await readFlagFile(path, '--service-account-signing-key-file'), `--service-account-signing-key-file ${path}`);
}

/**
 * The key in `path` (`<data-dir>/service-account.key`), generated on first start: RSA 2048,
 * as k3s does, since RS256 is the one algorithm every JWT consumer checks.
 */
export async function ensureSigningKey(path: string): Promise<SigningKey> {
  const stored = await readOptional(path);
  if (stored !== undefined) return signingKeyFromPem(stored, path);
  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  await writePrivateFile(path, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  return signingKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), path);
}
