import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { ConnectionOptions } from 'node:tls';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import { serviceUnavailable, timeout, type StatusError } from '../../api/index.js';
import type { HandlerContext } from '../request/index.js';
import { dialTls, routeUpgrades, spliceUpgrade, upgradeOf } from '../upgrade-routing.js';
import type { NodeAgentEndpoint } from './node-agent-target.js';

/**
 * How the API server reaches node agents: kube-apiserver's `--kubelet-client-certificate`,
 * `--kubelet-client-key`, `--kubelet-certificate-authority` and `--kubelet-timeout`, under svc's
 * names (`--node-agent-*`).
 */
export interface NodeAgentProxyOptions {
  /** PEM client certificate the API server presents to agents (their `--client-ca-file` must trust its CA). */
  readonly clientCertificate?: string | undefined;
  readonly clientKey?: string | undefined;
  /** PEM CA the agents' serving certificates must chain to; without it they are not verified. */
  readonly certificateAuthority?: string | undefined;
  /** Time to connect and get the response head (ms, default 5 s); a stream may run longer. */
  readonly timeoutMs?: number | undefined;
  /** Told once that agents' certificates go unverified. */
  readonly warn?: ((message: string) => void) | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Forwards subresource requests to node agents (installed by buildApp). */
    nodeAgentProxy: NodeAgentProxy;
  }
}

/** Installs the proxy on the app: its options, and the routing of HTTP upgrades. */
export function installNodeAgentProxy(app: FastifyInstance, options: NodeAgentProxyOptions = {}): void {
  app.decorate('nodeAgentProxy', new NodeAgentProxy({ ...options, warn: options.warn ?? ((message) => app.log.warn(message)) }));
  routeUpgrades(app);
}

/** Headers that belong to one connection and are never passed on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);
/** What an upgrade keeps of the client's request head: the protocol negotiation. */
const UPGRADE_HEADERS = /^(upgrade|connection|sec-websocket-.*|x-stream-protocol-version|user-agent|origin|content-length)$/i;

export class NodeAgentProxy {
  #warned = false;

  constructor(private readonly options: NodeAgentProxyOptions) {}

  get timeoutMs(): number {
    return this.options.timeoutMs ?? 5000;
  }

  #tls(endpoint: NodeAgentEndpoint): ConnectionOptions {
    const { clientCertificate, clientKey, certificateAuthority } = this.options;
    if (!certificateAuthority && !this.#warned) {
      this.#warned = true;
      this.options.warn?.('no --node-agent-certificate-authority: the serving certificates of node agents are not verified');
    }
    return {
      host: endpoint.address,
      port: endpoint.port,
      ...(clientCertificate && clientKey ? { cert: clientCertificate, key: clientKey } : {}),
      ...(certificateAuthority ? { ca: certificateAuthority, rejectUnauthorized: true } : { rejectUnauthorized: false }),
    };
  }

  /**
   * A plain request (logs, node proxy): the agent's answer — code, headers, body — is streamed
   * back as it comes, so `logs -f` flows. The response head must come within the timeout.
   */
  async forward(ctx: HandlerContext, endpoint: NodeAgentEndpoint, path: string): Promise<void> {
    const { request, reply } = ctx;
    const body = Buffer.isBuffer(request.body) ? request.body : undefined;
    const headers: Record<string, string> = {};
    for (const name of ['accept', 'content-type']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    if (body) headers['content-length'] = String(body.length);
    const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpsRequest({ ...this.#tls(endpoint), method: request.method, path, headers, agent: false });
      const timer = setTimeout(() => req.destroy(this.#timeout(endpoint)), this.timeoutMs);
      req.on('response', (res) => {
        clearTimeout(timer);
        resolve(res);
      });
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(isStatus(error) ? error : this.#unreachable(endpoint, error));
      });
      req.end(body);
    });
    reply.hijack();
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(upstream.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
    reply.raw.writeHead(upstream.statusCode ?? 502, out);
    reply.raw.flushHeaders();
    // The client going away ends the agent's stream too (a follow stops there).
    reply.raw.on('close', () => upstream.destroy());
    await pipeline(upstream, reply.raw).catch(() => reply.raw.destroy());
  }

  /**
   * An upgrade (exec, attach, port-forward): after the API server's own checks, the client's
   * socket and a TLS connection to the agent are piped both ways; the agent's `101` and every
   * frame after it pass through untouched, whatever the protocol (WebSocket or SPDY).
   */
  async upgrade(ctx: HandlerContext, endpoint: NodeAgentEndpoint, path: string): Promise<boolean> {
    const connection = upgradeOf(ctx.request);
    if (!connection) return false;
    const raw = ctx.request.raw.rawHeaders;
    let head = `${ctx.request.method} ${path} HTTP/1.1\r\nHost: ${hostPort(endpoint)}\r\n`;
    for (let i = 0; i + 1 < raw.length; i += 2) if (UPGRADE_HEADERS.test(raw[i]!)) head += `${raw[i]}: ${raw[i + 1]}\r\n`;
    head += '\r\n';
    const agent = await dialTls(this.#tls(endpoint), this.timeoutMs, {
      unreachable: (error) => (isStatus(error) ? error : this.#unreachable(endpoint, error)),
      late: () => this.#timeout(endpoint),
    });
    ctx.reply.hijack();
    spliceUpgrade(connection, agent, head);
    return true;
  }

  /**
   * A GET the API server makes for itself (the resource metrics' scrapes): the agent's body, whole
   * and bounded by `maxBytes`, within the timeout; a non-2xx answer rejects.
   */
  async fetch(endpoint: NodeAgentEndpoint, path: string, maxBytes = 64 * 1024 * 1024): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const req = httpsRequest({ ...this.#tls(endpoint), method: 'GET', path, headers: { accept: 'application/json' }, agent: false });
      const timer = setTimeout(() => req.destroy(this.#timeout(endpoint)), this.timeoutMs);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) req.destroy(new Error(`the answer of ${path} is larger than ${maxBytes} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(timer);
          const code = res.statusCode ?? 502;
          if (code >= 200 && code < 300) resolve(Buffer.concat(chunks));
          else reject(serviceUnavailable(`the node agent of node ${JSON.stringify(endpoint.node)} answered ${path} with ${code}`));
        });
        res.on('error', () => undefined);
      });
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(isStatus(error) ? error : this.#unreachable(endpoint, error));
      });
      req.end();
    });
  }

  #unreachable(endpoint: NodeAgentEndpoint, error: Error): StatusError {
    return serviceUnavailable(`the node agent of node ${JSON.stringify(endpoint.node)} at ${hostPort(endpoint)} cannot be reached: ${error.message}`);
  }

  #timeout(endpoint: NodeAgentEndpoint): StatusError {
    return timeout(`the node agent of node ${JSON.stringify(endpoint.node)} at ${hostPort(endpoint)} did not answer within ${this.timeoutMs} ms`, 1);
  }
}

const isStatus = (error: unknown): error is StatusError => (error as { name?: string }).name === 'StatusError';
const hostPort = (e: NodeAgentEndpoint) => (e.address?.includes(':') ? `[${e.address}]:${e.port}` : `${e.address}:${e.port}`);
