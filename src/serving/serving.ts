import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { SecureContextOptions, TLSSocket } from 'node:tls';
import { isStatusError, StatusError } from '../api/index.js';
import { copyListener, listenBacklog } from '../listening/index.js';
import { readPausedTlsConnectionsThroughStreams } from '../tls-connections/index.js';
import { runChecks, type HealthCheck } from './health.js';
import { cpuProfile, heapSnapshot, profileSeconds } from './profiling.js';
import type { RequestAuth } from './request-auth.js';

/**
 * A daemon's secure port (the controller runtime's, so svc-controller-manager's and any user's
 * controller program's): `/healthz`, `/readyz`, `/livez`, `/metrics` and, with profiling on,
 * `/debug/pprof/`. Every request is authenticated and authorized (request-auth.ts) before it is
 * answered. HTTP/2 and HTTP/1.1 by default (ALPN), HTTP/1.1 only with `--disable-http2-serving`.
 * Errors are `Status` bodies, as the API server's.
 */

export interface ServingTls extends SecureContextOptions {
  readonly cert: string;
  readonly key: string;
  /** CAs client certificates may chain to (`--client-ca-file` and `--requestheader-client-ca-file`). */
  readonly ca?: string[];
  /** Per-name contexts (`--tls-sni-cert-key`). */
  readonly SNICallback?: (servername: string, cb: (err: Error | null, ctx?: import('node:tls').SecureContext) => void) => void;
}

export interface ServingOptions {
  readonly bindAddress: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly tls: ServingTls;
  readonly http2: boolean;
  readonly maxStreamsPerConnection?: number;
  /**
   * `--permit-port-sharing`: bind with SO_REUSEPORT so several instances share the port. Node
   * 22.12 and later pass it to the socket (`reusePort`); Node 20 has no such option and binds alone.
   */
  readonly reusePort?: boolean;
  /** The accept queue's length; default `net.core.somaxconn`, as the API server's (src/listening). */
  readonly backlog?: number;
  /**
   * Extra handles on the listening socket, each one more accept a loop turn when the loop is slow
   * (src/listening/listener-copies.ts). Default 0: a secure port's clients are a few scrapers and
   * probes, not worth the helper process at start; a server with many clients sets it.
   */
  readonly listenerCopies?: number;
  readonly auth: RequestAuth;
  readonly health: { readonly livez: ReadonlyMap<string, HealthCheck>; readonly healthz: ReadonlyMap<string, HealthCheck>; readonly readyz: ReadonlyMap<string, HealthCheck> };
  /** The Prometheus exposition; without it `/metrics` is 404. */
  readonly metrics?: () => Promise<{ body: string; contentType: string }>;
  readonly profiling: boolean;
  /**
   * Long-lived GET streams by path (the controller runtime's `/live/controllers`), answered after
   * the same authentication and authorization as every other path.
   */
  readonly streams?: ReadonlyMap<string, (res: ServerResponse | Http2ServerResponse) => void | Promise<void>>;
}

export interface Serving {
  readonly port: number;
  /** `https://host:port`, loopback when bound to every interface. */
  readonly url: string;
  close(): Promise<void>;
}

type AnyRequest = IncomingMessage | Http2ServerRequest;
type AnyResponse = ServerResponse | Http2ServerResponse;

function sendStatus(res: AnyResponse, error: StatusError): void {
  const body = JSON.stringify(error.toStatus());
  res.writeHead(error.code, { 'content-type': 'application/json' });
  res.end(body);
}

function sendText(res: AnyResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType, 'x-content-type-options': 'nosniff' });
  res.end(body);
}

const PPROF_INDEX = `<html><head><title>/debug/pprof/</title></head><body>
<p>Profiles of this daemon (Node ${process.version}):</p>
<ul>
<li><a href="profile?seconds=30">profile</a>: a CPU profile over ?seconds=N (default 30), as .cpuprofile JSON</li>
<li><a href="heap">heap</a>: a V8 heap snapshot (.heapsnapshot)</li>
</ul></body></html>
`;

async function route(req: AnyRequest, res: AnyResponse, options: ServingOptions, path: string, query: URLSearchParams): Promise<void> {
  for (const endpoint of ['livez', 'healthz', 'readyz'] as const) {
    if (path === `/${endpoint}` || path.startsWith(`/${endpoint}/`)) {
      const answer = runChecks(endpoint, options.health[endpoint], path.slice(endpoint.length + 2), query);
      sendText(res, answer.status, answer.body);
      return;
    }
  }
  const stream = options.streams?.get(path);
  if (stream !== undefined && req.method === 'GET') {
    await stream(res);
    return;
  }
  if (path === '/metrics' && options.metrics) {
    const { body, contentType } = await options.metrics();
    sendText(res, 200, body, contentType);
    return;
  }
  if (options.profiling && (path === '/debug/pprof' || path.startsWith('/debug/pprof/'))) {
    const which = path.slice('/debug/pprof/'.length);
    if (which === '') return sendText(res, 200, PPROF_INDEX, 'text/html; charset=utf-8');
    if (which === 'profile') {
      const seconds = profileSeconds(query);
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      const profile = await cpuProfile(seconds, abort.signal);
      res.writeHead(200, { 'content-type': 'application/json', 'content-disposition': 'attachment; filename="profile.cpuprofile"' });
      res.end(profile);
      return;
    }
    if (which === 'heap') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-disposition': 'attachment; filename="heap.heapsnapshot"' });
      await heapSnapshot((chunk) => void (res as ServerResponse).write(chunk)); // same write() on both response kinds
      res.end();
      return;
    }
  }
  throw new StatusError({ reason: 'NotFound', message: `the server could not find the requested resource (${path})` });
}

async function handle(req: AnyRequest, res: AnyResponse, options: ServingOptions): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://localhost');
  const socket = req.socket as TLSSocket;
  const input = {
    method: req.method ?? 'GET',
    path: url.pathname,
    headers: req.headers as IncomingHttpHeaders,
    peerCertificate: typeof socket.getPeerX509Certificate === 'function' ? socket.getPeerX509Certificate() : undefined,
  };
  try {
    if (input.method !== 'GET' && input.method !== 'HEAD') {
      throw new StatusError({ reason: 'MethodNotAllowed', message: `${input.method} is not supported on ${input.path}` });
    }
    const user = await options.auth.authenticate(input);
    await options.auth.authorize(user, input);
    await route(req, res, options, url.pathname, url.searchParams);
  } catch (error) {
    if (res.headersSent) {
      res.end();
      return;
    }
    sendStatus(res, isStatusError(error) ? error : new StatusError({ reason: 'InternalError', message: (error as Error).message }));
  }
}

const UNSPECIFIED = new Set(['', '0.0.0.0', '::']);

export async function startServing(options: ServingOptions): Promise<Serving> {
  const tls = { ...options.tls, requestCert: true, rejectUnauthorized: false };
  const listener = (req: AnyRequest, res: AnyResponse) => void handle(req, res, options);
  const server = options.http2
    ? createSecureServer({ ...tls, allowHTTP1: true, ...(options.maxStreamsPerConnection ? { settings: { maxConcurrentStreams: options.maxStreamsPerConnection } } : {}) }, listener)
    : createHttpsServer(tls, listener);
  // A client's request pipelined behind an answer it has not read must wait, not close the connection.
  readPausedTlsConnectionsThroughStreams(server);
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket: import('node:net').Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const { backlog } = listenBacklog(options.backlog);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Blank or unspecified: every interface and family (Node's default host is `::` with dual stack).
    const address = UNSPECIFIED.has(options.bindAddress) ? { port: options.port } : { port: options.port, host: options.bindAddress };
    server.listen({ ...address, backlog, ...(options.reusePort ? { reusePort: true } : {}) }, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    const reason = error.code === 'EADDRINUSE' ? 'the address is in use' : error.code === 'EADDRNOTAVAIL' ? 'no such local address' : error.message;
    throw new Error(`cannot listen on ${options.bindAddress || '0.0.0.0'}:${options.port}: ${reason}`);
  });
  const copies = await copyListener(server, options.listenerCopies ?? 0, backlog);
  const port = (server.address() as AddressInfo).port;
  const host = UNSPECIFIED.has(options.bindAddress) ? '127.0.0.1' : options.bindAddress;
  let closing: Promise<void> | undefined;
  return {
    port,
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const closed = Promise.all([copies.close(), new Promise<void>((done) => server.close(() => done()))]);
        for (const socket of sockets) socket.destroy();
        void closed.then(() => resolve());
      });
      return closing;
    },
  };
}
