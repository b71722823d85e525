import { z } from 'zod';
import { withAuthenticatedGroup, type UserInfo } from './user.js';

/**
 * The claims of a service-account token, in Kubernetes' layout: the registered claims (RFC 7519)
 * and the private `kubernetes.io` claim that names the account and what the token is bound to.
 */

const objectRefSchema = z.object({ name: z.string().min(1), uid: z.string().min(1) });

export const privateClaimsSchema = z.object({
  namespace: z.string().min(1),
  serviceaccount: objectRefSchema,
  pod: objectRefSchema.optional(),
  secret: objectRefSchema.optional(),
});
export type PrivateClaims = z.infer<typeof privateClaimsSchema>;

// Seconds since the epoch as a whole number a 64-bit integer holds exactly (as upstream's JWT
// validation reads an int64): `exp: 1e308`, a fraction or a negative time is no date, and the
// token is refused rather than compared as one.
const numericDate = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const serviceAccountClaimsSchema = z.object({
  iss: z.string().min(1),
  sub: z.string().min(1),
  // A single audience may be a bare string (RFC 7519 §4.1.3).
  aud: z.union([z.string().min(1).transform((a) => [a]), z.array(z.string()).min(1)]),
  exp: numericDate,
  nbf: numericDate.optional(),
  iat: numericDate.optional(),
  jti: z.string().optional(),
  'kubernetes.io': privateClaimsSchema,
});
export type ServiceAccountClaims = z.infer<typeof serviceAccountClaimsSchema>;

/**
 * The issuer of legacy secret-based tokens (the controller manager's serviceaccount-token loop
 * signs them): always accepted beside `--service-account-issuer`, as Kubernetes does.
 */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';

/** A legacy token's claims, as Kubernetes writes them: no audience, no expiry, the secret by name. */
export const legacyClaimsSchema = z.object({
  iss: z.literal(LEGACY_ISSUER),
  sub: z.string().min(1),
  'kubernetes.io/serviceaccount/namespace': z.string().min(1),
  'kubernetes.io/serviceaccount/secret.name': z.string().min(1),
  'kubernetes.io/serviceaccount/service-account.name': z.string().min(1),
  'kubernetes.io/serviceaccount/service-account.uid': z.string().min(1),
});
export type LegacyClaims = z.infer<typeof legacyClaimsSchema>;

export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
export const POD_NAME_EXTRA = 'authentication.kubernetes.io/pod-name';
export const POD_UID_EXTRA = 'authentication.kubernetes.io/pod-uid';
export const CREDENTIAL_ID_EXTRA = 'authentication.kubernetes.io/credential-id';

/** `system:serviceaccount:<namespace>:<name>`, the user name of a service account. */
export const serviceAccountUserName = (namespace: string, name: string) => `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;

/** The user a verified token stands for. */
export function serviceAccountUser(claims: ServiceAccountClaims): UserInfo {
  const k = claims['kubernetes.io'];
  const extra: Record<string, readonly string[]> = {};
  if (k.pod) {
    extra[POD_NAME_EXTRA] = [k.pod.name];
    extra[POD_UID_EXTRA] = [k.pod.uid];
  }
  if (claims.jti !== undefined) extra[CREDENTIAL_ID_EXTRA] = [`JTI=${claims.jti}`];
  const user: UserInfo = {
    name: serviceAccountUserName(k.namespace, k.serviceaccount.name),
    uid: k.serviceaccount.uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${k.namespace}`],
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
  return Object.freeze(withAuthenticatedGroup(user));
}
