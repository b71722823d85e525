import type { CertificateSigningRequest } from '../api/index.js';

/**
 * Where a CertificateSigningRequest stands, by its conditions and certificate: what the signing,
 * approving and cleaning loops and the node agent waiting for its certificate all ask.
 */

type Condition = NonNullable<NonNullable<CertificateSigningRequest['status']>['conditions']>[number];

/** The condition of `type` that is True, if there is one. */
export function trueCondition(csr: CertificateSigningRequest, type: 'Approved' | 'Denied' | 'Failed'): Condition | undefined {
  return csr.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

export type CsrState = 'pending' | 'approved' | 'issued' | 'denied' | 'failed';

export function csrState(csr: CertificateSigningRequest): CsrState {
  if (trueCondition(csr, 'Denied')) return 'denied';
  if (trueCondition(csr, 'Failed')) return 'failed';
  if (!trueCondition(csr, 'Approved')) return 'pending';
  return csr.status?.certificate ? 'issued' : 'approved';
}

/** The issued certificate, PEM (the status holds it base64-encoded), or undefined. */
export function issuedCertificate(csr: CertificateSigningRequest): string | undefined {
  const data = csr.status?.certificate;
  return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
}
