import { randomBytes } from 'node:crypto';
import type { RequestHeaders, UserInfo } from './user.js';

/** The session cookie's name. */
export const SESSION_COOKIE = 'svc-session';
/** Where a browser exchanges a credential for a session cookie (POST) and ends it (DELETE). */
export const BROWSER_SESSION_PATH = '/browser-session';

export interface BrowserSessionsOptions {
  /** How long a session lasts from its exchange; default 900 s (a dashboard re-exchanges). */
  readonly ttlSeconds?: number | undefined;
  /** The most sessions held; the oldest goes first past it. Default 10,000. */
  readonly maxSessions?: number | undefined;
  /** The clock, injectable for tests. */
  readonly now?: (() => number) | undefined;
}

interface Session {
  readonly user: UserInfo;
  readonly expiresAt: number;
}

/**
 * Short-lived browser sessions, so a page never holds a bearer token in a URL (URLs end up in
 * logs, history and Referer headers) and `EventSource`, which cannot set headers, can watch.
 * A caller authenticated by any credential POSTs to BROWSER_SESSION_PATH and gets an HttpOnly,
 * Secure, SameSite=Strict cookie naming a random session; the session is that user as they were
 * authenticated at the exchange, until it expires or is deleted. A cookie authenticates only
 * GET and HEAD (reads and watches): a forged cross-site request can then change nothing, and no
 * CSRF token is needed. Sessions live in this process's memory: a restart ends them all, and
 * behind several API servers a browser keeps to the server that issued its cookie (docs/dashboard.md).
 */
export class BrowserSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: BrowserSessionsOptions = {}) {
    this.#ttlMs = (options.ttlSeconds ?? 900) * 1000;
    this.#max = options.maxSessions ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** A new session for `user`: the cookie to set and when it expires. */
  open(user: UserInfo): { id: string; cookie: string; expiresAt: Date } {
    const id = randomBytes(32).toString('base64url');
    const expiresAt = this.#now() + this.#ttlMs;
    // Insertion order is age order: the first key is the oldest session.
    if (this.#sessions.size >= this.#max) this.#sessions.delete(this.#sessions.keys().next().value as string);
    this.#sessions.set(id, { user, expiresAt });
    const cookie = `${SESSION_COOKIE}=${id}; Path=/; Max-Age=${Math.floor(this.#ttlMs / 1000)}; HttpOnly; Secure; SameSite=Strict`;
    return { id, cookie, expiresAt: new Date(expiresAt) };
  }

  /** Ends the session a request's cookie names; the cookie that clears it in the browser. */
  close(headers: RequestHeaders): string {
    const id = sessionIdOf(headers);
    if (id !== undefined) this.#sessions.delete(id);
    return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
  }

  /** The user of a request's live session cookie, if it has one. */
  userOf(headers: RequestHeaders): UserInfo | undefined {
    const id = sessionIdOf(headers);
    if (id === undefined) return undefined;
    const session = this.#sessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.#now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    return session.user;
  }

  get size(): number {
    return this.#sessions.size;
  }
}

function sessionIdOf(headers: RequestHeaders): string | undefined {
  const cookie = headers['cookie'];
  if (typeof cookie !== 'string') return undefined;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Query parameters that would put a credential in a URL; refused outright. */
const URL_CREDENTIALS = /[?&](access_token|token|bearer)=/i;

/** Whether a request URL carries a credential in its query (refused: URLs are logged and kept). */
export function hasCredentialInUrl(url: string): boolean {
  const query = url.indexOf('?');
  return query >= 0 && URL_CREDENTIALS.test(url.slice(query));
}
