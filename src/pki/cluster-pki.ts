import { X509Certificate as NodeCertificate, createPrivateKey, randomBytes, type KeyObject, type webcrypto } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { readOptional, writePrivateFile, writePublicFile } from './state-files.js';

/**
 * The serving certificate. Without --tls-cert-file the server is its own CA: on first start it
 * creates a CA and a serving certificate signed by it in `<data-dir>/pki/`, and on later starts
 * reuses both, so clients configured once (admin.svcconfig carries the CA) keep working. The
 * serving certificate alone is reissued, from the same CA, when it nears expiry or no longer
 * names every address the server answers on.
 */

export interface ServingCertificate {
  /** PEM: the serving certificate, then any intermediates. */
  readonly cert: string;
  /** PEM private key of `cert`. */
  readonly key: string;
  /** PEM of the CA clients should trust; `undefined` when the chain has no self-signed root (use the system's). */
  readonly caPem: string | undefined;
}

/** Names the serving certificate must carry. */
export interface ServingNames {
  readonly dns: readonly string[];
  readonly ips: readonly string[];
}

// ECDSA P-256: small keys, fast handshakes, and accepted by every client we target (Go, Node, Python).
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
const CA_LIFETIME_MS = 10 * 365 * DAY_MS;
const SERVING_LIFETIME_MS = 365 * DAY_MS;
const RENEW_WITHIN_MS = 30 * DAY_MS;
// Backdating tolerates clients whose clocks run a little behind the server's.
const BACKDATE_MS = 60 * 60 * 1000;

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** localhost, the loopback addresses, this host's name and the bind address when it is a specific one. */
export function servingNames(bindAddress: string): ServingNames {
  const ips = ['127.0.0.1', '::1'];
  if (!UNSPECIFIED.has(bindAddress) && !ips.includes(bindAddress)) ips.push(bindAddress);
  const dns = ['localhost'];
  const host = hostname();
  if (host && host !== 'localhost') dns.push(host);
  return { dns, ips };
}

/** Loads the CA and serving certificate from `dir` (`<data-dir>/pki`), creating what is missing. */
export async function ensurePki(dir: string, names: ServingNames): Promise<ServingCertificate> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const paths = {
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    cert: join(dir, 'serving.crt'),
    key: join(dir, 'serving.key'),
  };
  const ca = await loadOrCreateCa(paths.caCert, paths.caKey);

  const [certPem, keyPem] = await Promise.all([readOptional(paths.cert), readOptional(paths.key)]);
  if (certPem !== undefined && keyPem !== undefined && servingIsUsable(certPem, keyPem, ca.node, names)) {
    return { cert: certPem, key: keyPem, caPem: ca.pem };
  }
  const issued = await issueServing(ca, names);
  await writePrivateFile(paths.key, issued.key);
  await writePublicFile(paths.cert, issued.cert);
  return { cert: issued.cert, key: issued.key, caPem: ca.pem };
}

/** Loads `--tls-cert-file` and `--tls-private-key-file`, checking that they belong together. */
export async function loadServingCertificate(certFile: string, keyFile: string): Promise<ServingCertificate> {
  const certText = await readRequired(certFile, '--tls-cert-file');
  const keyText = await readRequired(keyFile, '--tls-private-key-file');
  const certs = pemCertificates(certText).map((pem) => {
    try {
      return { pem, cert: new NodeCertificate(pem) };
    } catch (error) {
      throw new Error(`--tls-cert-file ${certFile}: not a valid certificate (${(error as Error).message})`);
    }
  });
  const leaf = certs[0];
  if (!leaf) throw new Error(`--tls-cert-file ${certFile}: no PEM certificate found`);
  let key: KeyObject;
  try {
    key = createPrivateKey(keyText);
  } catch (error) {
    throw new Error(`--tls-private-key-file ${keyFile}: not a PEM private key (${(error as Error).message})`);
  }
  if (!leaf.cert.checkPrivateKey(key)) {
    throw new Error(`--tls-private-key-file ${keyFile} is not the key of the certificate in --tls-cert-file ${certFile}`);
  }
  if (Date.parse(leaf.cert.validTo) < Date.now()) throw new Error(`--tls-cert-file ${certFile}: the certificate expired on ${leaf.cert.validTo}`);
  const roots = certs.filter(({ cert }) => cert.issuer === cert.subject && cert.verify(cert.publicKey));
  return { cert: certText, key: keyText, caPem: roots.length > 0 ? roots.map((r) => r.pem).join('') : undefined };
}

interface Ca {
  readonly pem: string;
  readonly node: NodeCertificate;
  readonly cert: x509.X509Certificate;
  readonly signingKey: webcrypto.CryptoKey;
}

async function loadOrCreateCa(certPath: string, keyPath: string): Promise<Ca> {
  const [certPem, keyPem] = await Promise.all([readOptional(certPath), readOptional(keyPath)]);
  if (certPem === undefined && keyPem === undefined) {
    const created = await createCa();
    await writePrivateFile(keyPath, created.keyPem);
    await writePublicFile(certPath, created.pem);
    return created.ca;
  }
  if (certPem === undefined || keyPem === undefined) {
    const missing = certPem === undefined ? certPath : keyPath;
    throw new Error(`${missing} is missing while its pair exists; restore it, or delete the pki directory to create a new CA (clients must then get the new admin.svcconfig)`);
  }
  try {
    const node = new NodeCertificate(certPem);
    const signingKey = await crypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(keyPem), KEY_ALGORITHM, false, ['sign']);
    if (!node.checkPrivateKey(createPrivateKey(keyPem))) throw new Error('the key does not belong to the certificate');
    return { pem: certPem, node, cert: new x509.X509Certificate(certPem), signingKey };
  } catch (error) {
    throw new Error(`cannot use the CA in ${certPath} / ${keyPath}: ${(error as Error).message}`);
  }
}

async function createCa(): Promise<{ ca: Ca; keyPem: string; pem: string }> {
  const keys = await crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=svc-ca@${Math.floor(now / 1000)}`,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + CA_LIFETIME_MS),
    keys,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pem = cert.toString('pem') + '\n';
  const keyPem = await exportKeyPem(keys.privateKey);
  return { ca: { pem, node: new NodeCertificate(pem), cert, signingKey: keys.privateKey }, keyPem, pem };
}

/** A leaf certificate signed by the CA: `subject`, its extended key usage and subject names. */
async function issueLeaf(ca: Ca, subject: string, usage: string, names?: ServingNames): Promise<{ cert: string; key: string }> {
  const keys = await crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject,
    issuer: ca.cert.subject,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(Math.min(now + SERVING_LIFETIME_MS, Date.parse(ca.node.validTo))),
    publicKey: keys.publicKey,
    signingKey: ca.signingKey,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([usage]),
      ...(names
        ? [
            new x509.SubjectAlternativeNameExtension([
              ...names.dns.map((value) => ({ type: 'dns' as const, value })),
              ...names.ips.map((value) => ({ type: 'ip' as const, value })),
            ]),
          ]
        : []),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: await exportKeyPem(keys.privateKey) };
}

const issueServing = (ca: Ca, names: ServingNames) => issueLeaf(ca, 'CN=svc-apiserver', x509.ExtendedKeyUsage.serverAuth, names);

/** A client certificate, as files: where `ensureClientCertificate` keeps it. */
export interface ClientCertificateFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/**
 * A client certificate signed by the CA in `dir` (`<data-dir>/pki`), kept as `<name>.crt` and
 * `<name>.key` beside it and reissued when missing, damaged, expiring or naming another user.
 * The API server authenticates it when `--client-ca-file` is the CA's certificate: the common
 * name is the user, each organization a group. `svc up` uses it for the identities it runs with.
 */
export async function ensureClientCertificate(dir: string, name: string, who: { commonName: string; organizations?: readonly string[] }): Promise<ClientCertificateFiles> {
  const subject = [`CN=${who.commonName}`, ...(who.organizations ?? []).map((o) => `O=${o}`)].join(', ');
  return ensureLeafFiles(dir, name, subject, x509.ExtendedKeyUsage.clientAuth, undefined);
}

/**
 * A serving certificate for another server of the cluster (`svc up`'s node agent), signed by the
 * CA in `dir` and kept as `<name>.crt` / `<name>.key`: whoever trusts the CA (the API server's
 * `--node-agent-certificate-authority`) can verify that server by the names given.
 */
export async function ensureServingCertificateFiles(dir: string, name: string, commonName: string, names: ServingNames): Promise<ClientCertificateFiles> {
  return ensureLeafFiles(dir, name, `CN=${commonName}`, x509.ExtendedKeyUsage.serverAuth, names);
}

async function ensureLeafFiles(dir: string, name: string, subject: string, usage: string, names: ServingNames | undefined, caName = 'ca'): Promise<ClientCertificateFiles> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const ca = await loadOrCreateCa(join(dir, `${caName}.crt`), join(dir, `${caName}.key`));
  const files = { certFile: join(dir, `${name}.crt`), keyFile: join(dir, `${name}.key`) };
  const [certPem, keyPem] = await Promise.all([readOptional(files.certFile), readOptional(files.keyFile)]);
  const usable =
    certPem !== undefined &&
    keyPem !== undefined &&
    clientIsUsable(certPem, keyPem, ca.node, subject) &&
    (names === undefined || servingIsUsable(certPem, keyPem, ca.node, names));
  if (usable) return files;
  const issued = await issueLeaf(ca, subject, usage, names);
  await writePrivateFile(files.keyFile, issued.key);
  await writePublicFile(files.certFile, issued.cert);
  return files;
}

/** The front proxy's identity: the CA aggregated servers trust, and the client certificate it signs. */
export interface FrontProxyPki {
  /** PEM of the front-proxy CA (the default `--requestheader-client-ca-file`). */
  readonly caPem: string;
  readonly caFile: string;
  /** PEM client certificate and key the API server presents to aggregated servers. */
  readonly cert: string;
  readonly key: string;
}

/** The common name of the generated front-proxy client certificate (the default `--requestheader-allowed-names`). */
export const FRONT_PROXY_CLIENT = 'front-proxy-client';

/**
 * A CA of its own for the front proxy (`front-proxy-ca.crt`), kept apart from the cluster CA as
 * kubeadm does: an aggregated server that trusts it trusts only the API server's proxied requests,
 * not every client the cluster CA signed. The client certificate `front-proxy-client.crt` is
 * signed by it; both live in `dir` (`<data-dir>/pki`) and are reissued like the others.
 */
export async function ensureFrontProxyPki(dir: string): Promise<FrontProxyPki> {
  const files = await ensureLeafFiles(dir, FRONT_PROXY_CLIENT, `CN=${FRONT_PROXY_CLIENT}`, x509.ExtendedKeyUsage.clientAuth, undefined, 'front-proxy-ca');
  const caFile = join(dir, 'front-proxy-ca.crt');
  const [caPem, cert, key] = await Promise.all([readFile(caFile, 'utf8'), readFile(files.certFile, 'utf8'), readFile(files.keyFile, 'utf8')]);
  return { caPem, caFile, cert, key };
}

/** The certificate is the key's, signed by the CA, not near expiry, and names `subject`. */
function clientIsUsable(certPem: string, keyPem: string, ca: NodeCertificate, subject: string): boolean {
  try {
    const cert = new NodeCertificate(certPem);
    const wanted = new x509.Name(subject).toString();
    return (
      cert.checkPrivateKey(createPrivateKey(keyPem)) &&
      cert.verify(ca.publicKey) &&
      Date.parse(cert.validTo) - Date.now() > RENEW_WITHIN_MS &&
      new x509.X509Certificate(certPem).subject === wanted
    );
  } catch {
    return false;
  }
}

/** Whether a stored serving certificate can be served again as it is. */
function servingIsUsable(certPem: string, keyPem: string, ca: NodeCertificate, names: ServingNames): boolean {
  try {
    const cert = new NodeCertificate(certPem);
    return (
      cert.checkPrivateKey(createPrivateKey(keyPem)) &&
      cert.verify(ca.publicKey) &&
      Date.parse(cert.validTo) - Date.now() > RENEW_WITHIN_MS &&
      names.dns.every((name) => cert.checkHost(name) !== undefined) &&
      names.ips.every((ip) => cert.checkIP(ip) !== undefined)
    );
  } catch {
    // Unreadable or damaged: it is ours to replace.
    return false;
  }
}

/** A positive 128-bit serial (RFC 5280 wants positive; some clients reject a negative one). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

async function exportKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY') + '\n';
}

function pemCertificates(text: string): string[] {
  return [...text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((m) => `${m[0]}\n`);
}

async function readRequired(path: string, flagName: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`${flagName} ${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}
