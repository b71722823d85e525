import { concat, concatMap, defer, filter, firstValueFrom, fromEvent, map, merge, NEVER, of, startWith, type Observable } from 'rxjs';
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

/**
 * The request's versions as the server writes them, by a watch of that one object from its
 * creation (no polling: approval by hand may take minutes, signing a moment, and either is seen at
 * once). A relist after the watch expired hands the object again; a request deleted meanwhile, or
 * gone from a relist, is an error.
 */
function requestVersions(client: Client, created: CertificateSigningRequest): Observable<CertificateSigningRequest> {
  const name = created.metadata.name!;
  const gone = () => new CertificateRequestRefused(`certificate signing request ${name} was deleted before it was issued`);
  return defer(() => {
    let seenInList = false;
    return client.watch$(builtin.certificateSigningRequests, { fieldSelector: `metadata.name=${name}`, resourceVersion: created.metadata.resourceVersion }).pipe(
      concatMap((event): CertificateSigningRequest[] => {
        switch (event.type) {
          case 'INIT':
            seenInList = false;
            return [];
          case 'INIT_APPLY':
            seenInList = true;
            return [event.object];
          case 'INIT_DONE':
            if (!seenInList) throw gone();
            return [];
          case 'ADDED':
          case 'MODIFIED':
            return [event.object];
          case 'DELETED':
            throw gone();
          default:
            return [];
        }
      }),
    );
  });
}

/** Rejects with the signal's reason once it aborts (the agent is stopping). */
const aborted = (signal: AbortSignal | undefined): Observable<never> =>
  signal
    ? fromEvent(signal, 'abort').pipe(
        startWith(undefined),
        filter(() => signal.aborted),
        map(() => {
          throw signal.reason as Error;
        }),
      )
    : NEVER;

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
  const settled = (csr: CertificateSigningRequest): boolean => ['issued', 'denied', 'failed'].includes(csrState(csr));
  const csr = await firstValueFrom(merge(concat(of(created), requestVersions(client, created)).pipe(filter(settled)), aborted(ask.signal)));
  const state = csrState(csr);
  if (state === 'issued') return { cert: issuedCertificate(csr)!, key: keyPem };
  const condition = trueCondition(csr, state === 'denied' ? 'Denied' : 'Failed')!;
  throw new CertificateRequestRefused(`certificate signing request ${name} was ${state}: ${condition.reason ?? ''} ${condition.message ?? ''}`.trim());
}
