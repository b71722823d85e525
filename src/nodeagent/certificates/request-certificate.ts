import type { CertificateSigningRequest } from '../../api/index.js';
import { builtin, type Client } from '../../client/index.js';
import { loadPki } from './lazy-pki.js';

/**
 * Asks the cluster for a certificate, as the kubelet does: a fresh key, a CertificateSigningRequest
 * for it (named `node-csr-<random>`), then the wait until the request is issued — or denied or
 * failed, which is an error carrying the condition's reason and message.
 */

export interface CertificateAsk {
  readonly signerName: string;
  readonly usages: readonly string[];
  readonly commonName: string;
  readonly organizations: readonly string[];
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
  /** `spec.expirationSeconds` (at least 600); default: the signer's own duration. */
  readonly expirationSeconds?: number | undefined;
  /** Stops the wait (the agent is stopping). */
  readonly signal?: AbortSignal | undefined;
  /** Told the request's name once it is created (what `kubectl certificate approve` needs). */
  readonly onCreated?: ((name: string) => void) | undefined;
}

export interface IssuedPair {
  readonly cert: string;
  readonly key: string;
}

export class CertificateRequestRefused extends Error {
  override readonly name = 'CertificateRequestRefused';
}

// How often the request is read while it waits: approval by hand may take minutes, signing a moment.
const POLL_MS = 500;

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export async function requestCertificate(client: Client, ask: CertificateAsk): Promise<IssuedPair> {
  const { createCertificateRequest, csrState, issuedCertificate, trueCondition } = await loadPki();
  const { requestPem, keyPem } = await createCertificateRequest({
    commonName: ask.commonName,
    organizations: ask.organizations,
    ...(ask.dnsNames ? { dnsNames: ask.dnsNames } : {}),
    ...(ask.ipAddresses ? { ipAddresses: ask.ipAddresses } : {}),
  });
  const body: CertificateSigningRequest = {
    apiVersion: 'certificates.svc.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { generateName: 'node-csr-' },
    spec: {
      request: Buffer.from(requestPem).toString('base64'),
      signerName: ask.signerName,
      usages: [...ask.usages],
      ...(ask.expirationSeconds !== undefined ? { expirationSeconds: ask.expirationSeconds } : {}),
    },
  };
  const created = await client.create(builtin.certificateSigningRequests, body);
  const name = created.metadata.name!;
  ask.onCreated?.(name);
  for (let csr = created; ; csr = await client.get(builtin.certificateSigningRequests, name)) {
    const state = csrState(csr);
    if (state === 'issued') return { cert: issuedCertificate(csr)!, key: keyPem };
    if (state === 'denied' || state === 'failed') {
      const condition = trueCondition(csr, state === 'denied' ? 'Denied' : 'Failed')!;
      throw new CertificateRequestRefused(`certificate signing request ${name} was ${state}: ${condition.reason ?? ''} ${condition.message ?? ''}`.trim());
    }
    await sleep(POLL_MS, ask.signal);
  }
}
