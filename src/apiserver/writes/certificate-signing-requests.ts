import { X509Certificate } from 'node:crypto';
import { CERTIFICATES_GROUP, invalid, type FieldCause, type ResourceType } from '../../api/index.js';
import { builtinSigner, CertificateRequestError, isReservedSignerName, KNOWN_USAGES, parseCertificateRequest } from '../../pki/index.js';
import type { ApiObject } from '../api-object.js';
import type { UserInfo } from '../authn/index.js';
import { ANONYMOUS_USER, withAuthenticatedGroup } from '../authn/user.js';

/**
 * What the API server checks and fills on a CertificateSigningRequest (Kubernetes' strategy for
 * the type), beyond its schema: the requester is whoever created it (the body's `username`,
 * `uid`, `groups` and `extra` are replaced), the request must be a PEM CERTIFICATE REQUEST whose
 * signature verifies, the signer name a qualified `domain/path` (and, in the `svc.io/` and
 * `kubernetes.io/` domains, one of the built-in signers), the usages known ones; the spec never
 * changes after creation; Approved and Denied are never both set; a certificate written to the
 * status is PEM certificates. Each failure is a 422 naming the field.
 */

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});

export const isCertificateSigningRequests = (type: ResourceType): boolean => type.group === CERTIFICATES_GROUP && type.resource === 'certificatesigningrequests';

// A qualified name: a DNS subdomain, a slash, then a path of the same characters.
const SIGNER_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[-a-zA-Z0-9_.~/]+$/;

function signerCauses(signerName: unknown): FieldCause[] {
  if (typeof signerName !== 'string' || !SIGNER_NAME.test(signerName) || signerName.length > 571) {
    return [{ reason: 'FieldValueInvalid', field: 'spec.signerName', message: 'must be a fully qualified domain and path of the form example.com/signer-name' }];
  }
  if (isReservedSignerName(signerName) && builtinSigner(signerName) === undefined) {
    return [{ reason: 'FieldValueNotSupported', field: 'spec.signerName', message: `unknown signer ${JSON.stringify(signerName)}: the svc.io/ and kubernetes.io/ signers are the built-in ones` }];
  }
  return [];
}

function usageCauses(usages: unknown): FieldCause[] {
  const list = Array.isArray(usages) ? (usages as unknown[]) : [];
  const causes: FieldCause[] = [];
  const seen = new Set<unknown>();
  list.forEach((usage, i) => {
    if (typeof usage !== 'string' || !KNOWN_USAGES.includes(usage)) {
      causes.push({ reason: 'FieldValueNotSupported', field: `spec.usages[${i}]`, message: `Unsupported value: ${JSON.stringify(usage)}` });
    } else if (seen.has(usage)) {
      causes.push({ reason: 'FieldValueDuplicate', field: `spec.usages[${i}]`, message: `Duplicate value: ${JSON.stringify(usage)}` });
    }
    seen.add(usage);
  });
  return causes;
}

/** The object to store for a create by `user`: checked (422 on a bad request, signer or usage), the requester filled in. */
export async function certificateSigningRequestOnCreate(object: ApiObject, asker: UserInfo | undefined): Promise<ApiObject> {
  // The groups as authorization sees them: an authenticated user is in system:authenticated.
  const user = asker && asker.name !== ANONYMOUS_USER.name ? withAuthenticatedGroup(asker) : asker;
  const spec = asObject(object['spec']);
  const causes = [...signerCauses(spec['signerName']), ...usageCauses(spec['usages'])];
  const request = typeof spec['request'] === 'string' ? Buffer.from(spec['request'], 'base64').toString('utf8') : '';
  try {
    await parseCertificateRequest(request);
  } catch (error) {
    if (!(error instanceof CertificateRequestError)) throw error;
    causes.push({ reason: 'FieldValueInvalid', field: 'spec.request', message: error.message });
  }
  if (causes.length > 0) throw invalid({ group: CERTIFICATES_GROUP, kind: 'CertificateSigningRequest' }, object.metadata.name ?? '', causes);
  const { username: _u, uid: _i, groups: _g, extra: _e, ...rest } = spec;
  const requester: Json = { username: user?.name ?? '', groups: [...(user?.groups ?? [])] };
  if (user?.uid) requester['uid'] = user.uid;
  if (user?.extra && Object.keys(user.extra).length > 0) requester['extra'] = user.extra;
  return { ...object, spec: { ...rest, ...requester } };
}

function conditionCauses(object: ApiObject): FieldCause[] {
  const conditions = asObject(object['status'])['conditions'];
  const list = Array.isArray(conditions) ? conditions.map(asObject) : [];
  const isTrue = (type: string) => list.some((c) => c['type'] === type && c['status'] === 'True');
  const causes: FieldCause[] = [];
  if (isTrue('Approved') && isTrue('Denied')) {
    causes.push({ reason: 'FieldValueInvalid', field: 'status.conditions', message: 'Approved and Denied conditions are mutually exclusive' });
  }
  const types = list.map((c) => c['type']);
  types.forEach((type, i) => {
    if (types.indexOf(type) !== i && (type === 'Approved' || type === 'Denied' || type === 'Failed')) {
      causes.push({ reason: 'FieldValueDuplicate', field: `status.conditions[${i}].type`, message: `Duplicate value: ${JSON.stringify(type)}` });
    }
  });
  return causes;
}

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function certificateCauses(object: ApiObject): FieldCause[] {
  const certificate = asObject(object['status'])['certificate'];
  if (typeof certificate !== 'string' || certificate === '') return [];
  const text = Buffer.from(certificate, 'base64').toString('utf8');
  const blocks = text.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) return [{ reason: 'FieldValueInvalid', field: 'status.certificate', message: 'must contain at least one PEM CERTIFICATE block' }];
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (error) {
      return [{ reason: 'FieldValueInvalid', field: 'status.certificate', message: `a PEM CERTIFICATE block does not parse: ${(error as Error).message}` }];
    }
  }
  return [];
}

/** The object to store for an update (any endpoint). Throws 422. */
export function certificateSigningRequestOnUpdate(next: ApiObject, current: ApiObject): ApiObject {
  // The spec is the requester's and the server's: never changed once created.
  const object = { ...next, spec: current['spec'] };
  const causes = [...conditionCauses(object), ...certificateCauses(object)];
  if (causes.length > 0) throw invalid({ group: CERTIFICATES_GROUP, kind: 'CertificateSigningRequest' }, current.metadata.name ?? '', causes);
  return object;
}
