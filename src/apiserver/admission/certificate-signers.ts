import { CERTIFICATES_GROUP, forbidden } from '../../api/index.js';
import type { UserInfo } from '../authn/user.js';
import type { AdmissionAttributes } from './attributes.js';
import type { AdmissionEnv, AdmissionKind, AdmissionPlugin } from './plugin.js';

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const signerOf = (object: unknown): string => String(asObject(asObject(object)['spec'])['signerName'] ?? '');

const isRequestWrite = (attrs: AdmissionKind, subresource: string): boolean =>
  attrs.operation === 'UPDATE' && attrs.subresource === subresource && attrs.type.group === CERTIFICATES_GROUP && attrs.type.resource === 'certificatesigningrequests';

/**
 * Whether `user` may `verb` (approve, sign) requests of `signerName`: the verb on the resource
 * `signers` of certificates.k8s.io named for the signer, or for its whole domain (`example.com/*`),
 * as upstream's IsAuthorizedForSignerName asks. A server without an authorizer allows everything.
 */
function mayActFor(env: AdmissionEnv, user: UserInfo | undefined, verb: string, signerName: string): boolean {
  if (!env.authorize || !user) return true;
  const ask = (name: string) => env.authorize!(user, { kind: 'resource', group: CERTIFICATES_GROUP, resource: 'signers', subresource: '', namespace: '', name }, verb).decision === 'allow';
  return ask(signerName) || ask(`${signerName.split('/')[0]}/*`);
}

/**
 * CertificateApproval: a write to a CertificateSigningRequest's `approval` subresource (approving or
 * denying it) needs `approve` on `signers` for the request's signerName — on top of `update` on
 * `certificatesigningrequests/approval`, which the authorizer already asked — so whoever may write
 * approvals for one signer cannot approve requests for another. 403 otherwise, nothing stored.
 */
export function certificateApproval(env: AdmissionEnv): AdmissionPlugin {
  return {
    name: 'CertificateApproval',
    appliesTo: (kind) => isRequestWrite(kind, 'approval'),
    validate(attrs: AdmissionAttributes) {
      if (!isRequestWrite(attrs, 'approval') || !attrs.object) return;
      const signerName = signerOf(attrs.oldObject ?? attrs.object);
      if (!mayActFor(env, attrs.user, 'approve', signerName)) {
        throw forbidden({ group: CERTIFICATES_GROUP, resource: 'certificatesigningrequests' }, attrs.name, `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
      }
    },
  };
}

/**
 * CertificateSigning: a write to the `status` subresource that changes `status.certificate` (issues
 * or replaces the certificate) needs `sign` on `signers` for the request's signerName; status writes
 * that leave the certificate as it was (conditions) are not checked, as upstream.
 */
export function certificateSigning(env: AdmissionEnv): AdmissionPlugin {
  return {
    name: 'CertificateSigning',
    appliesTo: (kind) => isRequestWrite(kind, 'status'),
    validate(attrs: AdmissionAttributes) {
      if (!isRequestWrite(attrs, 'status') || !attrs.object) return;
      const before = asObject(asObject(attrs.oldObject)['status'])['certificate'];
      const after = asObject(asObject(attrs.object)['status'])['certificate'];
      if ((before ?? '') === (after ?? '')) return;
      const signerName = signerOf(attrs.oldObject ?? attrs.object);
      if (!mayActFor(env, attrs.user, 'sign', signerName)) {
        throw forbidden({ group: CERTIFICATES_GROUP, resource: 'certificatesigningrequests' }, attrs.name, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
      }
    },
  };
}
