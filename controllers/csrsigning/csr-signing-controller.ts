import type { Observable } from 'rxjs';
import { isStatusError, rfc3339, type CertificateSigningRequest } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import {
  builtinSigner,
  CertificateRequestError,
  csrState,
  parseCertificateRequest,
  signCertificateRequest,
  signerProblem,
  type SignerName,
  type SigningCa,
} from '../../src/pki/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';

export interface CsrSigningOptions {
  /** The CA of each signer that signs (`--cluster-signing-*`); a request to another signer is left for someone else. */
  readonly signers: ReadonlyMap<SignerName, SigningCa>;
  /** `--cluster-signing-duration`: the longest lifetime a certificate gets (a request may ask less). */
  readonly durationMs: number;
  /** The clock, in ms (tests move it). */
  readonly now?: (() => number) | undefined;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `csrsigning`).
const NAME = 'certificatesigningrequest-signing-controller';

/**
 * Signs approved CertificateSigningRequests of the built-in signers it has a CA for, as
 * Kubernetes' csrsigning: the certificate lives `--cluster-signing-duration`, or
 * `spec.expirationSeconds` when shorter, and never beyond the CA. A request the signer must not
 * sign (a usage it does not allow, a subject its certificates are not for, a request that does not
 * parse) gets a `Failed` condition (reason `SignerValidationFailure`) saying why, and no certificate.
 */
export function csrSigningController(ctx: ControllerContext, options: CsrSigningOptions): Observable<ControllerResult<unknown>> {
  const now = options.now ?? Date.now;
  const requests = ctx.informers.informer(builtin.certificateSigningRequests);
  const fail = async (csr: CertificateSigningRequest, message: string): Promise<void> => {
    const at = rfc3339(new Date(now()));
    const conditions = [...(csr.status?.conditions ?? []), { type: 'Failed' as const, status: 'True' as const, reason: 'SignerValidationFailure', message, lastUpdateTime: at, lastTransitionTime: at }];
    await ctx.client.updateStatus(builtin.certificateSigningRequests, { ...csr, status: { ...csr.status, conditions } });
  };
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: requests,
    reconcile: async (name) => {
      const csr = requests.store.get(name);
      if (!csr || csr.metadata.deletionTimestamp || csrState(csr) !== 'approved') return;
      const signer = builtinSigner(csr.spec.signerName);
      const ca = signer === undefined ? undefined : options.signers.get(signer);
      if (signer === undefined || ca === undefined) return;
      const usages = csr.spec.usages ?? [];
      try {
        let info;
        try {
          info = await parseCertificateRequest(Buffer.from(csr.spec.request, 'base64').toString('utf8'));
        } catch (error) {
          if (error instanceof CertificateRequestError) return await fail(csr, error.message);
          throw error;
        }
        const problem = signerProblem(signer, info, usages);
        if (problem) return await fail(csr, problem);
        const requested = csr.spec.expirationSeconds === undefined ? Infinity : csr.spec.expirationSeconds * 1000;
        const pem = await signCertificateRequest(ca, info, usages, Math.min(options.durationMs, requested), now());
        await ctx.client.updateStatus(builtin.certificateSigningRequests, { ...csr, status: { ...csr.status, certificate: Buffer.from(pem).toString('base64') } });
      } catch (error) {
        // Changed meanwhile (approved again, signed by another manager): its own event judges it again.
        if (isStatusError(error) && (error.code === 404 || error.code === 409)) return;
        throw error;
      }
    },
  });
}
