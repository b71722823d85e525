import type { IncomingMessage, ServerResponse } from 'node:http';
import { Agent, request } from 'undici';
import { StatusError } from '../api/index.js';
import type { ConnectionOptions } from '../client/index.js';

/**
 * The dashboard's way into the cluster: a GET-only reverse proxy of the API (`/api`, `/apis`,
 * `/version`), sending the user's own svcconfig credential, as `kubectl proxy` does. The page
 * then needs no token at all (none in its script, none in a URL, none in storage): what it can do
 * is read, as the user, from the one origin that served it. Threat model: docs/dashboard.md.
 */
export class ReadOnlyProxy {
  readonly #agent: Agent;
  readonly #origin: string;
  readonly #connection: ConnectionOptions;

  constructor(connection: ConnectionOptions) {
    this.#connection = connection;
    this.#origin = new URL(connection.server).origin;
    this.#agent = new Agent({
      connect: {
        ...(connection.caData !== undefined ? { ca: connection.caData } : {}),
        ...(connection.clientCertificate !== undefined ? { cert: connection.clientCertificate } : {}),
        ...(connection.clientKey !== undefined ? { key: connection.clientKey } : {}),
        rejectUnauthorized: connection.insecureSkipTlsVerify !== true,
      },
      // Watches are long: the proxy has no body timeout; the browser's hang-up ends them.
      bodyTimeout: 0,
    });
  }

  /** Paths the proxy forwards: the API and its discovery, nothing else of the server. */
  static serves(path: string): boolean {
    return path === '/api' || path.startsWith('/api/') || path === '/apis' || path.startsWith('/apis/') || path === '/version';
  }

  async forward(req: IncomingMessage, res: ServerResponse, pathAndQuery: string): Promise<void> {
    const token = this.#connection.tokenSource !== undefined ? await this.#connection.tokenSource() : this.#connection.token;
    const headers: Record<string, string> = { 'user-agent': 'svc-dashboard' };
    // Only what says which representation the page wants; the browser's cookies and any
    // Authorization it sends are never passed on.
    const accept = req.headers['accept'];
    if (typeof accept === 'string') headers['accept'] = accept;
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    let upstream: Awaited<ReturnType<typeof request>>;
    try {
      upstream = await request(`${this.#origin}${pathAndQuery}`, {
        dispatcher: this.#agent,
        method: req.method === 'HEAD' ? 'HEAD' : 'GET',
        headers,
        signal: abort.signal,
      });
    } catch (error) {
      if (abort.signal.aborted) return;
      sendStatus(res, new StatusError({ reason: 'ServiceUnavailable', message: `the API server could not be reached: ${error instanceof Error ? error.message : String(error)}` }));
      return;
    }
    const type = upstream.headers['content-type'];
    res.writeHead(upstream.statusCode, {
      ...(typeof type === 'string' ? { 'content-type': type } : {}),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    res.flushHeaders();
    try {
      for await (const chunk of upstream.body) {
        if (!res.write(chunk as Uint8Array)) await drained(res);
        if (res.destroyed) break;
      }
    } catch {
      // The browser hung up (aborted) or the API server ended the watch: either way, done.
    } finally {
      upstream.body.destroy();
      res.end();
    }
  }

  async close(): Promise<void> {
    await this.#agent.destroy();
  }
}

/** Resolves when the browser has taken what was written, or has gone; leaves no listener behind. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** A `Status` answer, for what the dashboard itself refuses. */
export function sendStatus(res: ServerResponse, error: StatusError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(error.code, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(error.toStatus()));
}
