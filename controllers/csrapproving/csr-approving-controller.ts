import type { Observable } from 'rxjs';
import { isStatusError, rfc3339, type CertificateSigningRequest } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import { builtinSigner, CertificateRequestError, csrState, NODE_CLIENT_SIGNER, parseCertificateRequest, signerProblem } from '../../src/pki/index.js';
import { AccessReviewer } from '../../src/serving/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';

export interface CsrApprovingOptions {
  /** The clock, in ms (tests move it). */
  readonly now?: (() => number) | undefined;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `csrapproving`).
const NAME = 'certificatesigningrequest-approving-controller';

/**
 * Approves node client certificate requests as Kubernetes' csrapproving does: a pending request
 * to the node client signer whose request is a node client certificate (`O=system:nodes`,
 * `CN=system:node:<name>`, no alternative names, client usages) is approved when its requester
 * may `create` `certificatesigningrequests/selfnodeclient` (renewing its own: the requester is the
 * common name) or `certificatesigningrequests/nodeclient` (any node: a bootstrap token), asked by
 * a SubjectAccessReview. Anything else is left pending, for an explicit approver (`kubectl
 * certificate approve`); nothing is ever denied here.
 */
export function csrApprovingController(ctx: ControllerContext, options: CsrApprovingOptions = {}): Observable<ControllerResult<unknown>> {
  const now = options.now ?? Date.now;
  const requests = ctx.informers.informer(builtin.certificateSigningRequests);
  // No cache: a role bound a moment ago must count at the next request.
  const reviewer = new AccessReviewer(ctx.client, 0, 0, now);
  const mayCreate = async (csr: CertificateSigningRequest, subresource: string): Promise<boolean> => {
    const spec = csr.spec;
    const user = { name: spec.username ?? '', uid: spec.uid, groups: spec.groups ?? [], extra: spec.extra };
    const answer = await reviewer.review(user, { resourceAttributes: { group: 'certificates.svc.io', resource: 'certificatesigningrequests', subresource, verb: 'create' } });
    return answer.allowed;
  };
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: requests,
    reconcile: async (name) => {
      const csr = requests.store.get(name);
      if (!csr || csr.metadata.deletionTimestamp || csrState(csr) !== 'pending') return;
      if (builtinSigner(csr.spec.signerName) !== NODE_CLIENT_SIGNER) return;
      let info;
      try {
        info = await parseCertificateRequest(Buffer.from(csr.spec.request, 'base64').toString('utf8'));
      } catch (error) {
        if (error instanceof CertificateRequestError) return;
        throw error;
      }
      if (signerProblem(NODE_CLIENT_SIGNER, info, csr.spec.usages ?? []) !== undefined) return;
      const self = csr.spec.username === info.commonName;
      const allowed = (self && (await mayCreate(csr, 'selfnodeclient'))) || (await mayCreate(csr, 'nodeclient'));
      if (!allowed) return;
      const at = rfc3339(new Date(now()));
      const approved = {
        type: 'Approved' as const,
        status: 'True' as const,
        reason: 'AutoApproved',
        message: 'Auto approving node client certificate after SubjectAccessReview.',
        lastUpdateTime: at,
        lastTransitionTime: at,
      };
      const body = { ...csr, status: { ...csr.status, conditions: [...(csr.status?.conditions ?? []), approved] } };
      try {
        await ctx.client.updateApproval(builtin.certificateSigningRequests, body);
      } catch (error) {
        // Decided meanwhile (approved or denied by someone else), or gone: its own event judges it again.
        if (isStatusError(error) && (error.code === 404 || error.code === 409)) return;
        throw error;
      }
    },
  });
}
