import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { StatusError } from '../api/index.js';
import type { ConnectionOptions } from '../client/index.js';
import { PAGE_CSS, PAGE_HTML } from './page.js';
import { ReadOnlyProxy, sendStatus } from './read-only-proxy.js';
import { loadUiBundle } from './ui-bundle.js';

export interface DashboardOptions {
  /** The cluster and the credential the proxy reads with (a resolved svcconfig context). */
  readonly connection: ConnectionOptions;
  /** Port on 127.0.0.1; 0 picks a free one. Default 8001. */
  readonly port?: number | undefined;
  /** Address to listen on. Default 127.0.0.1: the proxy reads with the user's credential. */
  readonly host?: string | undefined;
  /**
   * The controller manager's secure port (`https://127.0.0.1:<port>`), for the Controllers view:
   * `/controllers/live` is its `/live/controllers` stream, read with the same credential. Without
   * it that path is a 404 Status and the view says the manager is not known.
   */
  readonly controllerManager?: string | undefined;
}

/** The dashboard's path of the controller manager's live stream. */
export const CONTROLLERS_LIVE_PATH = '/controllers/live';

export interface Dashboard {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export const DEFAULT_DASHBOARD_PORT = 8001;

/** Hosts a request may name: the loopback names (a DNS-rebound name is refused). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * `svc dashboard`: the UI's files and, on the same origin, the read-only proxy of the cluster
 * (docs/dashboard.md#the-dashboard). Plain node:http: three static answers and a streaming pipe
 * need no framework.
 */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const script = await loadUiBundle();
  const proxy = new ReadOnlyProxy(options.connection);
  // The manager's port is reached as the API server is: its certificate is the cluster CA's (svc
  // up), the credential the user's, and only its live stream is forwarded.
  const managerProxy = options.controllerManager !== undefined ? new ReadOnlyProxy({ ...options.connection, server: options.controllerManager }) : undefined;
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendStatus(res, new StatusError({ reason: 'InternalError', message: error instanceof Error ? error.message : String(error) })));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://dashboard');
    // A page on another site that resolves its own name to 127.0.0.1 (DNS rebinding) would be
    // same-origin with it in the browser's eyes; the Host it sends gives it away.
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (!LOOPBACK_HOSTS.has(host)) {
      sendStatus(res, new StatusError({ reason: 'Forbidden', message: `the dashboard answers only to loopback host names, not ${JSON.stringify(host)}` }));
      return;
    }
    // Browsers say where a request comes from: only the dashboard's own page (same-origin) or
    // the user typing the address (none). A page on another port of localhost is same-site, not
    // same-origin, and is refused too. Clients that are not browsers send no such header.
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      sendStatus(res, new StatusError({ reason: 'Forbidden', message: `requests from another origin (Sec-Fetch-Site: ${String(site)}) to the dashboard are refused` }));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      sendStatus(res, new StatusError({ reason: 'MethodNotAllowed', message: `the dashboard is read-only: ${req.method ?? ''} is not allowed` }));
      return;
    }
    if (url.pathname === CONTROLLERS_LIVE_PATH) {
      if (managerProxy === undefined) sendStatus(res, new StatusError({ reason: 'NotFound', message: 'this dashboard was not told where the controller manager serves (svc up tells it; svc dashboard has no such flag)' }));
      else await managerProxy.forward(req, res, '/live/controllers');
      return;
    }
    if (ReadOnlyProxy.serves(url.pathname)) {
      await proxy.forward(req, res, `${url.pathname}${url.search}`);
      return;
    }
    const file = STATIC[url.pathname];
    if (file === undefined) {
      sendStatus(res, new StatusError({ reason: 'NotFound', message: `the dashboard has no page ${url.pathname}` }));
      return;
    }
    const body = file.body === 'script' ? script : file.body;
    res.writeHead(200, {
      'content-type': file.type,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
      'referrer-policy': 'no-referrer',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  // exec, attach and port-forward are GETs that upgrade the connection: writes in effect, and the
  // page never needs one. Refused with a Status before anything reaches the API server.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const body = JSON.stringify(new StatusError({ reason: 'Forbidden', message: `the dashboard is read-only: connection upgrades (exec, attach, port-forward, WebSocket watches) are refused: ${req.url ?? ''}` }).toStatus());
    socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_DASHBOARD_PORT, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await Promise.all([proxy.close(), managerProxy?.close()]);
    },
  };
}

const STATIC: Readonly<Record<string, { readonly type: string; readonly body: string }>> = {
  '/': { type: 'text/html; charset=utf-8', body: PAGE_HTML },
  '/ui/style.css': { type: 'text/css; charset=utf-8', body: PAGE_CSS },
  '/ui/app.js': { type: 'text/javascript; charset=utf-8', body: 'script' },
};
