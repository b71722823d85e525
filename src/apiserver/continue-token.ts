import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { badRequest, expired } from '../api/index.js';

/**
 * Where a paged list goes on: the revision its first page was read at (`-1`: the newest, which a
 * client gets after its token expired), the first key of the next page relative to the listed
 * collection, and when the list began.
 */
export interface ContinuePoint {
  readonly revision: number;
  readonly start: string;
  /** Milliseconds since the epoch at which the first page was served. */
  readonly issuedAt: number;
}

/** How long a token is honoured (the spec's 5 minutes). */
export const CONTINUE_TOKEN_TTL_MS = 5 * 60_000;

export const CONTINUE_EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

const VERSION = 1;
const MAC_BYTES = 16;

/**
 * Continue tokens: `base64url(JSON)` of the continue point, a dot, and an HMAC over the listed
 * collection and that text. The MAC makes a token opaque in practice: one that was edited, or
 * that belongs to another collection, is a 400, never a list of somebody else's keys. The key
 * outlives restarts when the server derives it from its persisted state, so a client paging
 * across a restart is not failed.
 */
export class ContinueTokens {
  private readonly key: Uint8Array;

  constructor(
    key: Uint8Array = randomBytes(32),
    private readonly now: () => number = Date.now,
  ) {
    this.key = key;
  }

  issue(collection: string, point: Omit<ContinuePoint, 'issuedAt'> & { issuedAt?: number }): string {
    const body = Buffer.from(JSON.stringify({ v: VERSION, rv: point.revision, start: point.start, at: point.issuedAt ?? this.now() })).toString('base64url');
    return `${body}.${this.mac(collection, body)}`;
  }

  /**
   * The point a token names, checked: 400 for anything this server did not issue for
   * `collection`, 410 once it is older than the token lifetime (with a fresh token that goes on
   * from the same key at the newest revision).
   */
  read(collection: string, token: string): ContinuePoint {
    const invalid = () => badRequest(`continue key is not valid: ${token.length > 64 ? `${token.slice(0, 64)}…` : token}`);
    const dot = token.indexOf('.');
    if (dot <= 0) throw invalid();
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const wanted = Buffer.from(this.mac(collection, body), 'base64url');
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw invalid();
    let parsed: { v?: unknown; rv?: unknown; start?: unknown; at?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof parsed;
    } catch {
      throw invalid();
    }
    const { v, rv, start, at } = parsed;
    if (v !== VERSION || typeof start !== 'string' || !Number.isSafeInteger(rv) || (rv as number) < -1 || !Number.isSafeInteger(at)) throw invalid();
    const point = { revision: rv as number, start, issuedAt: at as number };
    if (point.revision !== -1 && this.now() - point.issuedAt > CONTINUE_TOKEN_TTL_MS) throw this.expired(collection, point);
    return point;
  }

  /** 410 for a point that can no longer be served consistently; its token goes on at the newest state. */
  expired(collection: string, point: ContinuePoint) {
    return expired(CONTINUE_EXPIRED_MESSAGE, this.issue(collection, { revision: -1, start: point.start }));
  }

  private mac(collection: string, body: string): string {
    return createHmac('sha256', this.key).update(collection).update('\n').update(body).digest().subarray(0, MAC_BYTES).toString('base64url');
  }
}
