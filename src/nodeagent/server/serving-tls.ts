import { constants as fsConstants } from 'node:fs';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { SecureVersion } from 'node:tls';
import { badRequest, validateName } from '../../api/index.js';
import { selfSignedCertificate, type PemPair } from '../../encoding/index.js';
import { getCiphers } from '../../tls-connections/index.js';
import type { AgentServerFlags } from './options.js';


/** The agent's serving certificate and the TLS options of its HTTPS port. */
export interface AgentTls {
  readonly cert: string;
  readonly key: string;
  readonly minVersion?: SecureVersion | undefined;
  /** OpenSSL's cipher list (TLS 1.2 and 1.3 suites, colon-separated); undefined: Node's default. */
  readonly ciphers?: string | undefined;
  /** Set when the pair was generated: where it was written. */
  readonly generatedIn?: string | undefined;
}

/** File names of the self-signed pair kept in `--cert-dir`. */
export const SELF_SIGNED_CERT = 'nodeagent.crt';
export const SELF_SIGNED_KEY = 'nodeagent.key';

const MIN_VERSIONS: Readonly<Record<NonNullable<AgentServerFlags['tlsMinVersion']>, SecureVersion>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

/**
 * Go's cipher suite names (what `--tls-cipher-suites` takes in Kubernetes) to OpenSSL's. TLS 1.3
 * suites have the same name in both. Suites OpenSSL has no name for under Go's (RC4 ones) are absent.
 */
const GO_CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
};

/**
 * `--tls-cipher-suites` as OpenSSL's cipher list: Go names are mapped, OpenSSL names this Node
 * knows pass as they are; anything else is a 400 naming it.
 */
export function opensslCiphers(suites: readonly string[]): string | undefined {
  if (suites.length === 0) return undefined;
  const known = new Set(getCiphers());
  const unknown: string[] = [];
  const names = suites.map((suite) => {
    const name = GO_CIPHER_SUITES[suite] ?? suite;
    if (!known.has(name.toLowerCase())) unknown.push(suite);
    return name;
  });
  if (unknown.length > 0) {
    throw badRequest(`--tls-cipher-suites: unknown cipher suite ${unknown.map((u) => JSON.stringify(u)).join(', ')} (use Go names such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 or OpenSSL names)`);
  }
  return names.join(':');
}

const exists = (path: string) => access(path, fsConstants.R_OK).then(() => true, () => false);

/**
 * The serving pair: the given files, else `<cert-dir>/nodeagent.{crt,key}`, generated (self-signed)
 * the first time and reused after, as the kubelet does.
 */
export async function agentTls(flags: AgentServerFlags, nodeName: string, nodeIPs: readonly string[] = []): Promise<AgentTls> {
  const minVersion = flags.tlsMinVersion ? MIN_VERSIONS[flags.tlsMinVersion] : undefined;
  const ciphers = opensslCiphers(flags.tlsCipherSuites);
  const certFile = flags.tlsCertFile || undefined;
  const keyFile = flags.tlsPrivateKeyFile || undefined;
  if ((certFile === undefined) !== (keyFile === undefined)) throw badRequest('--tls-cert-file and --tls-private-key-file go together: give both or neither');
  if (certFile && keyFile) return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8'), minVersion, ciphers };
  const certPath = join(flags.certDir, SELF_SIGNED_CERT);
  const keyPath = join(flags.certDir, SELF_SIGNED_KEY);
  if ((await exists(certPath)) && (await exists(keyPath))) {
    return { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8'), minVersion, ciphers };
  }
  const pair = selfSigned(nodeName, [flags.address, ...nodeIPs]);
  await mkdir(flags.certDir, { recursive: true, mode: 0o700 });
  await writeFile(keyPath, pair.key, { mode: 0o600 });
  await writeFile(certPath, pair.cert, { mode: 0o644 });
  return { ...pair, minVersion, ciphers, generatedIn: flags.certDir };
}

/** A self-signed serving certificate for the node's names (a year, as the kubelet's). */
function selfSigned(nodeName: string, addresses: readonly string[]): PemPair {
  const now = Date.now();
  return selfSignedCertificate({
    commonName: `${nodeName}@${Math.floor(now / 1000)}`,
    // The host's own name only when it is a DNS name (a host called `my_box` still starts).
    dnsNames: [...new Set([nodeName, hostname().toLowerCase(), 'localhost'])].filter((name) => name === nodeName || validateName(name, 'subdomain').length === 0),
    ipAddresses: [...new Set(['127.0.0.1', ...addresses.filter((a) => isIP(a) !== 0 && a !== '0.0.0.0' && a !== '::')])],
    notBefore: new Date(now - 3_600_000),
    notAfter: new Date(now + 365 * 86_400_000),
  });
}
