import { BOOTSTRAP_TOKEN_SECRET_TYPE, type Secret } from '../../src/api/index.js';

/** The namespaces bootstrap tokens and `cluster-info` live in (svc's kube-system and kube-public). */
export const SYSTEM_NAMESPACE = 'svc-system';
export const PUBLIC_NAMESPACE = 'svc-public';

export interface BootstrapToken {
  readonly id: string;
  readonly secret: string;
  /** ms since the epoch; undefined: never expires. NaN: an expiration that is no time (the token is treated as expired). */
  readonly expiresAt: number | undefined;
  readonly signing: boolean;
}

const decoded = (secret: Secret, key: string) => (secret.data?.[key] === undefined ? undefined : Buffer.from(secret.data[key]!, 'base64').toString('utf8'));

/**
 * A bootstrap token Secret read as Kubernetes reads it: type `bootstrap.kubernetes.io/token`,
 * name `bootstrap-token-<token-id>`, `token-id` of 6 and `token-secret` of 16 lowercase letters
 * or digits, `expiration` RFC 3339, `usage-bootstrap-signing: "true"`. Undefined when it is none.
 */
export function bootstrapToken(secret: Secret): BootstrapToken | undefined {
  if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || secret.metadata.namespace !== SYSTEM_NAMESPACE) return undefined;
  const id = decoded(secret, 'token-id');
  const value = decoded(secret, 'token-secret');
  if (!id || !value || !/^[a-z0-9]{6}$/.test(id) || !/^[a-z0-9]{16}$/.test(value) || secret.metadata.name !== `bootstrap-token-${id}`) return undefined;
  const expiration = decoded(secret, 'expiration');
  return { id, secret: value, expiresAt: expiration === undefined ? undefined : Date.parse(expiration), signing: decoded(secret, 'usage-bootstrap-signing') === 'true' };
}

/** Whether the token has expired at `now` (an unreadable expiration counts as expired, as upstream). */
export const isExpired = (token: BootstrapToken, now: number): boolean => token.expiresAt !== undefined && !(token.expiresAt > now);
