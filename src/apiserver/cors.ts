import type { FastifyInstance } from 'fastify';
import { StatusError } from '../api/index.js';
import { sendStatus } from './status.js';

/**
 * What a cross-origin caller may do, as kube-apiserver's CORS filter answers: every verb, the
 * headers a client library sends, credentials (a browser's session cookie) allowed.
 */
const ALLOW_METHODS = 'POST, GET, OPTIONS, PUT, DELETE, PATCH';
const ALLOW_HEADERS = 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since, Last-Event-ID';
const EXPOSE_HEADERS = 'Date, Warning, Audit-Id';

/**
 * `--cors-allowed-origins`: each entry a regular expression tested against the `Origin` header,
 * as kube-apiserver reads the flag (an unanchored pattern matches anywhere in the origin:
 * `example\.com` also admits `https://example.com.evil.net`; anchor it, `^https://example\.com$`).
 * An invalid pattern is an error at start.
 */
export function parseAllowedOrigins(patterns: readonly string[]): RegExp[] {
  return patterns.map((pattern) => {
    try {
      return new RegExp(pattern);
    } catch (error) {
      throw new StatusError({ reason: 'BadRequest', message: `--cors-allowed-origins: ${JSON.stringify(pattern)} is not a valid regular expression: ${(error as Error).message}` });
    }
  });
}

/** Whether a pattern admits only whole origins (starts with ^ and ends with $). */
export function isAnchored(pattern: RegExp): boolean {
  return pattern.source.startsWith('^') && pattern.source.endsWith('$');
}

/**
 * Answers CORS before authentication: an allowed origin gets the Access-Control headers on every
 * answer (a preflight is a 204 with nothing else), a preflight from any other origin is a 403
 * Status, and a plain request from it goes on without CORS headers (the browser then keeps the
 * answer from the page). Off (no hook) when no origin is allowed, as upstream's default.
 */
export function installCors(app: FastifyInstance, allowed: readonly RegExp[]): void {
  if (allowed.length === 0) return;
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin === undefined) return done();
    const ok = allowed.some((pattern) => pattern.test(origin));
    const preflight = request.method === 'OPTIONS';
    if (!ok) {
      if (preflight) return void sendStatus(reply, new StatusError({ reason: 'Forbidden', message: `origin ${JSON.stringify(origin)} is not allowed by --cors-allowed-origins` }));
      return done();
    }
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-allow-methods', ALLOW_METHODS);
    reply.header('access-control-allow-headers', ALLOW_HEADERS);
    reply.header('access-control-expose-headers', EXPOSE_HEADERS);
    reply.header('access-control-allow-credentials', 'true');
    reply.header('vary', 'Origin');
    if (preflight) return void reply.code(204).send();
    done();
  });
}
