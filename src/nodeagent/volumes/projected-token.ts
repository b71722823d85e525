import { readFile } from 'node:fs/promises';
import type { Pod } from '../../api/index.js';
import { currentDataPath } from './atomic-writer.js';
import type { PodObjectReader } from './object-reader.js';

/** Kubernetes' default lifetime of a projected token when the source sets none. */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
/** A token is renewed once this share of its lifetime has passed, or once it is a day old. */
const REFRESH_AT = 0.8;
const MAX_TOKEN_AGE_MS = 24 * 3600_000;

export interface TokenSource {
  readonly audience?: string | undefined;
  readonly expirationSeconds?: number | undefined;
  readonly path: string;
}

/**
 * The token a projected `serviceAccountToken` source writes. The token the volume holds now is
 * kept while it is fresh (less than 80 % of its lifetime gone, under a day old, for the same
 * audience); otherwise a new one is requested. The volume is its own cache: nothing is kept in
 * memory, so a restarted agent renews exactly the tokens that are due. When a renewal fails while
 * the old token is still valid, the old one stays and the next sync tries again, as the kubelet does.
 */
export async function projectedToken(volumeDir: string, pod: Pod, source: TokenSource, objects: PodObjectReader, now: number, remembered?: string | null): Promise<string> {
  // `remembered`: the token this process last wrote there (a hollow node's `writtenPayloads`), in
  // place of reading the file; null when it remembers writing none, so there is no file to read
  // (a first sync: the failed open of a missing file was 4 % of a density run's hollow-node CPU).
  const current = remembered === null ? undefined : (remembered ?? (await readFile(currentDataPath(volumeDir, source.path), 'utf8').catch(() => undefined)));
  const claims = current === undefined ? undefined : tokenClaims(current);
  const fresh =
    claims !== undefined &&
    (source.audience === undefined || source.audience === '' || claims.aud.includes(source.audience)) &&
    now < claims.iat * 1000 + REFRESH_AT * (claims.exp - claims.iat) * 1000 &&
    now < claims.iat * 1000 + MAX_TOKEN_AGE_MS;
  if (fresh) return current!;
  try {
    const issued = await objects.serviceAccountToken(pod, {
      ...(source.audience ? { audience: source.audience } : {}),
      expirationSeconds: source.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS,
    });
    return issued.token;
  } catch (error) {
    if (current !== undefined && claims !== undefined && now < claims.exp * 1000) return current;
    throw error;
  }
}

interface TokenClaims {
  iat: number;
  exp: number;
  aud: string[];
}

// The JWT's payload, read without verifying: the agent only decides when to ask for a new one.
function tokenClaims(token: string): TokenClaims | undefined {
  try {
    const payload: unknown = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
    if (typeof payload !== 'object' || payload === null) return undefined;
    const { iat, exp, aud } = payload as Record<string, unknown>;
    if (typeof iat !== 'number' || typeof exp !== 'number' || exp <= iat) return undefined;
    const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
    return { iat, exp, aud: audiences };
  } catch {
    return undefined;
  }
}
