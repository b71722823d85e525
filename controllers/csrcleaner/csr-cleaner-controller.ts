import type { Observable } from 'rxjs';
import { isStatusError, type CertificateSigningRequest } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import { requeueAfter } from '../../operators/index.js';
import { certificateValidity, issuedCertificate, trueCondition } from '../../src/pki/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';

export interface CsrCleanerOptions {
  /** The clock, in ms (tests move it). */
  readonly now?: (() => number) | undefined;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `csrcleaner`).
const NAME = 'certificatesigningrequest-cleaner-controller';
const HOUR = 3600_000;
/** Kubernetes' ages: a decided request is kept an hour after its decision, a pending one a day. */
export const CSR_CLEANER_AGES = { approved: HOUR, denied: HOUR, failed: HOUR, pending: 24 * HOUR } as const;

/** When `csr` may be deleted (ms since the epoch). */
export function csrDeletableAt(csr: CertificateSigningRequest): number {
  const created = Date.parse(csr.metadata.creationTimestamp ?? '') || 0;
  const decidedAt = (type: 'Approved' | 'Denied' | 'Failed') => {
    const condition = trueCondition(csr, type);
    return condition ? Date.parse(condition.lastUpdateTime ?? condition.lastTransitionTime ?? '') || created : undefined;
  };
  const times: number[] = [];
  const denied = decidedAt('Denied');
  if (denied !== undefined) times.push(denied + CSR_CLEANER_AGES.denied);
  const failed = decidedAt('Failed');
  if (failed !== undefined) times.push(failed + CSR_CLEANER_AGES.failed);
  const approved = decidedAt('Approved');
  if (approved !== undefined) times.push(approved + CSR_CLEANER_AGES.approved);
  if (times.length === 0) times.push(created + CSR_CLEANER_AGES.pending);
  // An issued certificate that has expired is of no use to anyone.
  const pem = issuedCertificate(csr);
  if (pem !== undefined) {
    try {
      times.push(certificateValidity(pem).notAfter);
    } catch {
      // Not a certificate: the ages above decide.
    }
  }
  return Math.min(...times);
}

/**
 * Deletes CertificateSigningRequests that have served their purpose, at Kubernetes' ages: an hour
 * after being approved, denied or failed, a day after creation when still pending, and as soon as
 * the certificate issued for it has expired. Each request is looked at when it changes and again
 * when its time comes.
 */
export function csrCleanerController(ctx: ControllerContext, options: CsrCleanerOptions = {}): Observable<ControllerResult<unknown>> {
  const now = options.now ?? Date.now;
  const requests = ctx.informers.informer(builtin.certificateSigningRequests);
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: requests,
    reconcile: async (name) => {
      const csr = requests.store.get(name);
      if (!csr || csr.metadata.deletionTimestamp) return;
      const wait = csrDeletableAt(csr) - now();
      // Timers are bounded: a clock moved by hand (or a long wait) is looked at again within an hour.
      if (wait > 0) return requeueAfter(Math.min(wait, HOUR));
      try {
        await ctx.client.delete(builtin.certificateSigningRequests, name, { preconditions: { uid: csr.metadata.uid!, resourceVersion: csr.metadata.resourceVersion! } });
      } catch (error) {
        // Gone, or changed since: its own event judges it again.
        if (isStatusError(error) && (error.code === 404 || error.code === 409)) return;
        throw error;
      }
    },
  });
}
