import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadPki } from './lazy-pki.js';
import type { IssuedPair } from './request-certificate.js';

/**
 * The certificates the agent was issued, kept in `--cert-dir` as the kubelet keeps its
 * `kubelet-{client,server}-current.pem`: `nodeagent-client-current.{crt,key}` (its identity
 * toward the API server) and `nodeagent-server-current.{crt,key}` (its serving certificate).
 */

export type CredentialKind = 'client' | 'server';

export const credentialPaths = (certDir: string, kind: CredentialKind) => ({
  certFile: join(certDir, `nodeagent-${kind}-current.crt`),
  keyFile: join(certDir, `nodeagent-${kind}-current.key`),
});

/** The stored pair, when both files are there, belong together and the certificate has not expired at `now`. */
export async function readCredentials(certDir: string, kind: CredentialKind, now = Date.now()): Promise<IssuedPair | undefined> {
  const paths = credentialPaths(certDir, kind);
  try {
    const [cert, key] = await Promise.all([readFile(paths.certFile, 'utf8'), readFile(paths.keyFile, 'utf8')]);
    const parsed = new X509Certificate(cert);
    if (!parsed.checkPrivateKey(createPrivateKey(key)) || !(Date.parse(parsed.validTo) > now)) return undefined;
    return { cert, key };
  } catch {
    // Missing or damaged: there is no usable pair.
    return undefined;
  }
}

/** Stores a pair (the key first, owner-only; each file replaced atomically). */
export async function writeCredentials(certDir: string, kind: CredentialKind, pair: IssuedPair): Promise<void> {
  const paths = credentialPaths(certDir, kind);
  await mkdir(certDir, { recursive: true, mode: 0o700 });
  const { writePrivateFile, writePublicFile } = await loadPki();
  await writePrivateFile(paths.keyFile, pair.key);
  await writePublicFile(paths.certFile, pair.cert);
}
