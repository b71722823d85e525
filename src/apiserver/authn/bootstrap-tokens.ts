import { timingSafeEqual } from 'node:crypto';
import { BOOTSTRAP_TOKEN_SECRET_TYPE } from '../../api/index.js';
import type { BoundObjects, LiveObject } from './service-account-tokens.js';
import { rejected } from './tokens.js';
import type { UserInfo } from './user.js';

/**
 * Bootstrap tokens as bearer tokens (Kubernetes' bootstrap token authenticator): a token
 * `<id>.<secret>` (6 and 16 lowercase letters or digits) is the user `system:bootstrap:<id>` in
 * group `system:bootstrappers` (and the Secret's `auth-extra-groups`) while the Secret
 * `svc-system/bootstrap-token-<id>` holds that secret, allows authentication
 * (`usage-bootstrap-authentication: "true"`) and has not expired. A token of that shape that
 * matches no such Secret is a 401, as any unknown token.
 */

export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
const SYSTEM_NAMESPACE = 'svc-system';
const EXTRA_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

const decoded = (secret: LiveObject, key: string): string | undefined => {
  const value = secret.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
};

const same = (a: string, b: string): boolean => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The user a bootstrap token Secret grants for `tokenSecret` at `now`, or undefined when it grants none. */
function userOf(secret: LiveObject | null, id: string, tokenSecret: string, now: number): UserInfo | undefined {
  if (!secret || secret.secretType !== BOOTSTRAP_TOKEN_SECRET_TYPE || secret.deletionTimestamp !== undefined) return undefined;
  if (decoded(secret, 'token-id') !== id || !same(decoded(secret, 'token-secret') ?? '', tokenSecret)) return undefined;
  if (decoded(secret, 'usage-bootstrap-authentication') !== 'true') return undefined;
  const expiration = decoded(secret, 'expiration');
  if (expiration !== undefined && !(Date.parse(expiration) > now)) return undefined;
  const extra = (decoded(secret, 'auth-extra-groups') ?? '')
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');
  // A Secret naming a group outside system:bootstrappers: grants nothing (upstream refuses it too).
  if (extra.some((g) => !EXTRA_GROUP.test(g))) return undefined;
  return { name: `${BOOTSTRAP_USER_PREFIX}${id}`, uid: '', groups: [BOOTSTRAPPERS_GROUP, ...extra] };
}

export class BootstrapTokens {
  #objects: BoundObjects | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Where Secrets are looked up; the server binds its watch caches once they exist. */
  bind(objects: BoundObjects): void {
    this.#objects = objects;
  }

  static looksLikeBootstrapToken(token: string): boolean {
    return BOOTSTRAP_TOKEN_PATTERN.test(token);
  }

  /** The token's user; a 401 for a token no Secret vouches for. */
  authenticate(token: string): UserInfo | Promise<UserInfo> {
    const match = BOOTSTRAP_TOKEN_PATTERN.exec(token);
    const objects = this.#objects;
    if (!match || !objects) throw rejected();
    const [, id, secret] = match as unknown as [string, string, string];
    const decide = (found: LiveObject | null): UserInfo => {
      const user = userOf(found, id, secret, this.now());
      if (!user) throw rejected();
      return user;
    };
    const found = objects.get('Secret', SYSTEM_NAMESPACE, `bootstrap-token-${id}`);
    return found instanceof Promise ? found.then(decide) : decide(found);
  }
}
