import { randomUUID, type KeyObject } from 'node:crypto';
import { LEGACY_TOKEN_INVALID_SINCE_LABEL, LEGACY_TOKEN_LAST_USED_LABEL, unauthorized } from '../../api/index.js';
import {
  LEGACY_ISSUER,
  legacyClaimsSchema,
  serviceAccountClaimsSchema,
  serviceAccountUser,
  serviceAccountUserName,
  type LegacyClaims,
  type PrivateClaims,
  type ServiceAccountClaims,
} from './claims.js';
import { algorithmForKey, JwtError, parseJws, signJws, verifyJws, type JwsAlgorithm } from './jwt.js';
import type { SigningKey, VerificationKey } from './keys.js';
import { LruMap } from './lru.js';
import type { UserInfo } from './user.js';

/**
 * Service-account tokens: minting them (for TokenRequest) and resolving them to users. A token is
 * good while its signature, issuer, audience and times check out and the service account (and
 * the pod or secret it is bound to, if any) still exists with the uid the token names.
 */

/** An object a token may be bound to, as it is now. */
export interface LiveObject {
  readonly uid: string;
  /** `metadata.deletionTimestamp` in ms since the epoch, when the object is being deleted. */
  readonly deletionTimestamp?: number | undefined;
  /** A Secret's `data.token`, decoded: a legacy token is good only while its secret holds it. */
  readonly token?: string | undefined;
  /** A Secret's labels (the legacy token's last-used day and invalid-since mark). */
  readonly labels?: Readonly<Record<string, string>> | undefined;
  /** A Secret's `type` and `data` (base64 values): bootstrap tokens are read from them. */
  readonly secretType?: string | undefined;
  readonly data?: Readonly<Record<string, string>> | undefined;
}

/** Told when a legacy token was used, and the day its secret says it last was (to record today). */
export type LegacyTokenUse = (namespace: string, secretName: string, lastUsed: string | undefined) => void;

export type BoundKind = 'ServiceAccount' | 'Pod' | 'Secret';

/**
 * Where the verifier looks objects up. `null`: the object does not exist. The answer should be
 * synchronous whenever memory can give it (the server's watch caches), so a request carrying a
 * cached token never waits.
 */
export interface BoundObjects {
  get(kind: BoundKind, namespace: string, name: string): LiveObject | null | Promise<LiveObject | null>;
}

export interface ServiceAccountTokensOptions {
  /** `--service-account-issuer`: the first is written into new tokens, all are accepted. */
  readonly issuers: readonly string[];
  /** `--api-audiences`: a token must name one of them (default: the issuers). */
  readonly audiences?: readonly string[] | undefined;
  /** The key tokens are signed with; without it the server cannot mint tokens. */
  readonly signingKey?: SigningKey | undefined;
  /** Keys tokens are checked with (the signing key's public half is added). */
  readonly verificationKeys: readonly VerificationKey[];
  /** `--service-account-max-token-expiration` in seconds; 0 or absent: no cap. */
  readonly maxExpirationSeconds?: number | undefined;
  /** Verified tokens remembered so a repeated token skips the signature check (default 4096). */
  readonly cacheSize?: number | undefined;
  /** The clock, in ms (tests move it). */
  readonly now?: (() => number) | undefined;
}

/** What a new token is for. */
export interface TokenGrant {
  readonly namespace: string;
  readonly serviceAccount: { readonly name: string; readonly uid: string };
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
  readonly pod?: { readonly name: string; readonly uid: string } | undefined;
  readonly secret?: { readonly name: string; readonly uid: string } | undefined;
}

export interface IssuedToken {
  readonly token: string;
  /** Seconds since the epoch. */
  readonly expiresAt: number;
}

/** Clock skew tolerated on exp, nbf and iat, as Kubernetes does (go-jose's default leeway). */
export const LEEWAY_SECONDS = 60;
/** A pod or secret being deleted keeps its tokens good this long (Kubernetes' grace). */
const DELETION_GRACE_MS = 60_000;

type Verified =
  | { readonly claims: ServiceAccountClaims; readonly legacy?: undefined; readonly user: UserInfo }
  | { readonly claims?: undefined; readonly legacy: LegacyClaims; readonly user: UserInfo };

const fail = () => unauthorized('Unauthorized');

export class ServiceAccountTokens {
  readonly issuers: readonly string[];
  readonly audiences: readonly string[];
  readonly maxExpirationSeconds: number;
  private readonly signing: { key: KeyObject; kid: string; alg: JwsAlgorithm } | undefined;
  private readonly keys = new Map<string, KeyObject[]>();
  private readonly allKeys: KeyObject[];
  private readonly cache: LruMap<string, Verified>;
  private readonly now: () => number;
  private objects: BoundObjects | undefined;
  private onLegacyUse: LegacyTokenUse | undefined;

  constructor(options: ServiceAccountTokensOptions) {
    if (options.issuers.length === 0) throw new Error('service-account tokens need at least one issuer');
    this.issuers = [...options.issuers];
    this.audiences = options.audiences && options.audiences.length > 0 ? [...options.audiences] : [...options.issuers];
    this.maxExpirationSeconds = options.maxExpirationSeconds ?? 0;
    this.now = options.now ?? Date.now;
    this.cache = new LruMap(options.cacheSize ?? 4096);
    const keys = [...options.verificationKeys];
    if (options.signingKey) {
      const { key, kid, publicKey } = options.signingKey;
      this.signing = { key, kid, alg: algorithmForKey(key) };
      if (!keys.some((k) => k.kid === kid)) keys.push({ kid, key: publicKey });
    }
    for (const { kid, key } of keys) this.keys.set(kid, [...(this.keys.get(kid) ?? []), key]);
    this.allKeys = keys.map((k) => k.key);
  }

  /** Whether the server can mint tokens (it has a signing key). */
  get canIssue(): boolean {
    return this.signing !== undefined;
  }

  /** Where live objects are looked up; the server binds its watch caches once they exist. */
  bind(objects: BoundObjects): void {
    this.objects = objects;
  }

  /** Who records the day a legacy token was used (the server writes its secret's last-used label). */
  trackLegacyUse(onUse: LegacyTokenUse): void {
    this.onLegacyUse = onUse;
  }

  /** Signs a token for `grant`. The caller has checked that the objects exist. */
  issue(grant: TokenGrant): IssuedToken {
    if (!this.signing) throw new Error('no --service-account-signing-key-file: this server cannot issue tokens');
    const iat = Math.floor(this.now() / 1000);
    const exp = iat + grant.expirationSeconds;
    const k: PrivateClaims = {
      namespace: grant.namespace,
      serviceaccount: { name: grant.serviceAccount.name, uid: grant.serviceAccount.uid },
      ...(grant.pod ? { pod: { name: grant.pod.name, uid: grant.pod.uid } } : {}),
      ...(grant.secret ? { secret: { name: grant.secret.name, uid: grant.secret.uid } } : {}),
    };
    const claims = {
      aud: [...grant.audiences],
      exp,
      iat,
      iss: this.issuers[0]!,
      jti: randomUUID(),
      'kubernetes.io': k,
      nbf: iat,
      sub: serviceAccountUserName(grant.namespace, grant.serviceAccount.name),
    };
    return { token: signJws(claims, this.signing.key, this.signing.alg, this.signing.kid), expiresAt: exp };
  }

  /** Whether `token` has the shape of a JWS at all (three dot-separated segments). */
  static looksLikeJwt(token: string): boolean {
    const first = token.indexOf('.');
    return first > 0 && token.indexOf('.', first + 1) > first && token.split('.').length === 3;
  }

  /**
   * The user `token` stands for, if it is one of ours and good for one of `audiences` (default:
   * the API audiences) now. Anything else throws Unauthorized. Synchronous unless a bound object
   * had to be read from the store.
   */
  authenticate(token: string, audiences: readonly string[] = this.audiences): UserInfo | Promise<UserInfo> {
    let verified = this.cache.get(token);
    if (!verified) {
      verified = this.verify(token);
      this.cache.set(token, verified);
    }
    const { claims } = verified;
    // A legacy token names no audience and never expires: it is good for the API's audiences
    // (Kubernetes' implicit audiences) while its secret and account exist.
    if (!claims) {
      if (!this.audiences.some((a) => audiences.includes(a))) throw fail();
      return this.checkLegacy(verified.legacy, token, verified.user);
    }
    const now = this.now() / 1000;
    if (now > claims.exp + LEEWAY_SECONDS) throw fail();
    if (claims.nbf !== undefined && now < claims.nbf - LEEWAY_SECONDS) throw fail();
    if (claims.iat !== undefined && now < claims.iat - LEEWAY_SECONDS) throw fail();
    if (!claims.aud.some((a) => audiences.includes(a))) throw fail();
    return this.checkBound(verified);
  }

  /** Signature, issuer and claim shapes: the checks whose answer never changes for a token. */
  private verify(token: string): Verified {
    let claims: ServiceAccountClaims;
    try {
      const jws = parseJws(token);
      const candidates = jws.kid !== undefined ? this.keys.get(jws.kid) : this.allKeys;
      if (!candidates || candidates.length === 0) throw fail();
      // Tokens without a kid (other issuers' keys given by file) are tried against every key.
      let signed = false;
      for (const key of candidates) {
        try {
          verifyJws(jws, key);
          signed = true;
          break;
        } catch (error) {
          if (!(error instanceof JwtError)) throw error;
        }
      }
      if (!signed) throw fail();
      if ((jws.payload as { iss?: unknown }).iss === LEGACY_ISSUER) {
        const legacy = legacyClaimsSchema.safeParse(jws.payload);
        if (!legacy.success) throw fail();
        return this.verifiedLegacy(legacy.data);
      }
      const parsed = serviceAccountClaimsSchema.safeParse(jws.payload);
      if (!parsed.success) throw fail();
      claims = parsed.data;
    } catch (error) {
      if (error instanceof JwtError) throw fail();
      throw error;
    }
    if (!this.issuers.includes(claims.iss)) throw fail();
    const k = claims['kubernetes.io'];
    if (claims.sub !== serviceAccountUserName(k.namespace, k.serviceaccount.name)) throw fail();
    return { claims, user: serviceAccountUser(claims) };
  }

  private verifiedLegacy(legacy: LegacyClaims): Verified {
    const namespace = legacy['kubernetes.io/serviceaccount/namespace'];
    const name = legacy['kubernetes.io/serviceaccount/service-account.name'];
    if (legacy.sub !== serviceAccountUserName(namespace, name)) throw fail();
    const user = serviceAccountUser({
      iss: legacy.iss,
      sub: legacy.sub,
      aud: [],
      exp: 0,
      'kubernetes.io': { namespace, serviceaccount: { name, uid: legacy['kubernetes.io/serviceaccount/service-account.uid'] } },
    });
    return { legacy, user };
  }

  /**
   * A legacy token is good while its secret exists, is not being deleted and still holds this
   * very token, and its account exists with the uid it names (Kubernetes' legacy validator).
   */
  private checkLegacy(legacy: LegacyClaims, token: string, user: UserInfo): UserInfo | Promise<UserInfo> {
    const objects = this.objects;
    if (!objects) throw fail();
    const namespace = legacy['kubernetes.io/serviceaccount/namespace'];
    // A secret the legacy token cleaner has marked invalid refuses its token (the mark removed, it is good again).
    const secretGood = (found: LiveObject | null) =>
      found !== null && found.deletionTimestamp === undefined && found.token === token && found.labels?.[LEGACY_TOKEN_INVALID_SINCE_LABEL] === undefined;
    const accountGood = (found: LiveObject | null) =>
      found !== null && found.deletionTimestamp === undefined && found.uid === legacy['kubernetes.io/serviceaccount/service-account.uid'];
    const secretName = legacy['kubernetes.io/serviceaccount/secret.name'];
    const used = (s: LiveObject) => {
      this.onLegacyUse?.(namespace, secretName, s.labels?.[LEGACY_TOKEN_LAST_USED_LABEL]);
      return user;
    };
    const secret = objects.get('Secret', namespace, secretName);
    const account = objects.get('ServiceAccount', namespace, legacy['kubernetes.io/serviceaccount/service-account.name']);
    if (!(secret instanceof Promise) && !(account instanceof Promise)) {
      if (!secretGood(secret) || !accountGood(account)) throw fail();
      return used(secret!);
    }
    return Promise.all([secret, account]).then(([s, a]) => {
      if (!secretGood(s) || !accountGood(a)) throw fail();
      return used(s!);
    });
  }

  /** The account, and the pod or secret the token is bound to, must still be the ones it names. */
  private checkBound(verified: Verified): UserInfo | Promise<UserInfo> {
    const objects = this.objects;
    if (!objects) throw fail();
    if (!verified.claims) throw fail();
    const k = verified.claims['kubernetes.io'];
    const checks: [BoundKind, { name: string; uid: string }][] = [['ServiceAccount', k.serviceaccount]];
    if (k.pod) checks.push(['Pod', k.pod]);
    if (k.secret) checks.push(['Secret', k.secret]);
    const now = this.now();
    const good = (found: LiveObject | null, uid: string) =>
      found !== null && found.uid === uid && (found.deletionTimestamp === undefined || found.deletionTimestamp > now - DELETION_GRACE_MS);
    const pending: Promise<boolean>[] = [];
    for (const [kind, ref] of checks) {
      const found = objects.get(kind, k.namespace, ref.name);
      if (found instanceof Promise) pending.push(found.then((f) => good(f, ref.uid)));
      else if (!good(found, ref.uid)) throw fail();
    }
    if (pending.length === 0) return verified.user;
    return Promise.all(pending).then((results) => {
      if (!results.every(Boolean)) throw fail();
      return verified.user;
    });
  }
}
