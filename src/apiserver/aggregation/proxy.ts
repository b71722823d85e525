import { request as httpsRequest } from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { serviceUnavailable, type StatusError } from '../../api/index.js';
import type { UserInfo } from '../authn/index.js';
import { dialTls, spliceUpgrade, upgradeOf } from '../upgrade-routing.js';
import type { RemoteApiService } from './remote-api-service.js';

/**
 * Passing a request to an aggregated server: the request's method, path, query, body and headers
 * go on as they came, except its credentials (the Authorization header, and any front-proxy
 * header the client sent, which only svc may set); the caller svc authenticated is named in
 * `X-Remote-User`, `X-Remote-Group` and `X-Remote-Extra-<key>`. Bodies stream both ways, so
 * watches and large lists flow; an HTTP upgrade is piped as bytes after the remote's 101.
 */

/** One endpoint of an APIService's Service. */
export interface ProxyTarget {
  readonly remote: RemoteApiService;
  readonly host: string;
  readonly port: number;
}

/** The streams a proxy keeps open (watches, upgrades): closing the server ends them, or it would wait for them. */
export type OpenStreams = Set<{ destroy(): void }>;

/** Keeps `stream` in `open` until it closes. */
function track(open: OpenStreams, stream: { destroy(): void; once(event: 'close', listener: () => void): unknown }): void {
  open.add(stream);
  stream.once('close', () => open.delete(stream));
}

/** Headers of one connection, never passed on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);
/** Headers that carry the caller's identity: svc replaces them with the front-proxy headers. */
const CREDENTIALS = /^(authorization|x-remote-.*|impersonate-.*)$/i;

/** The identity headers kube-aggregator sets; extra keys are percent-escaped as it does. */
export function identityHeaders(user: UserInfo): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'x-remote-user': user.name };
  if (user.groups.length > 0) headers['x-remote-group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) headers[`x-remote-extra-${encodeURIComponent(key)}`] = [...values];
  return headers;
}

function outgoingHeaders(request: FastifyRequest, target: ProxyTarget, user: UserInfo): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || CREDENTIALS.test(name)) continue;
    out[name] = value;
  }
  out['host'] = `${target.remote.service.name}.${target.remote.service.namespace}.svc:${target.remote.service.port}`;
  const forwardedFor = request.headers['x-forwarded-for'];
  out['x-forwarded-for'] = forwardedFor ? `${String(forwardedFor)}, ${request.ip}` : request.ip;
  return { ...out, ...identityHeaders(user) };
}

const describe = (target: ProxyTarget) => `${target.remote.name} (${target.host}:${target.port})`;

function unreachable(target: ProxyTarget, error: Error): StatusError {
  return serviceUnavailable(`the server for ${target.remote.group}/${target.remote.version} is currently unable to handle the request: ${describe(target)}: ${error.message}`);
}

/**
 * A plain request. Fails with a 503 StatusError when the remote cannot be reached or does not
 * send its response head within `timeoutMs`; once the head is there the reply is taken over and
 * the remote's answer streamed back as it comes, for as long as it runs.
 */
export async function forwardRequest(request: FastifyRequest, reply: FastifyReply, target: ProxyTarget, user: UserInfo, timeoutMs: number, open: OpenStreams): Promise<void> {
  const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
    let req: ReturnType<typeof httpsRequest>;
    // TLS options OpenSSL refuses throw here rather than emit 'error'.
    try {
      req = httpsRequest({
        ...target.remote.tls,
        host: target.host,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: outgoingHeaders(request, target, user),
        agent: target.remote.agent,
      });
    } catch (error) {
      return reject(unreachable(target, error as Error));
    }
    const timer = setTimeout(() => req.destroy(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
    req.on('response', (res) => {
      clearTimeout(timer);
      resolve(res);
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(unreachable(target, error));
    });
    // The body streams through as the client sends it (the server never parsed it).
    request.raw.pipe(req);
  });
  reply.hijack();
  track(open, reply.raw);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upstream.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  reply.raw.writeHead(upstream.statusCode ?? 502, headers);
  reply.raw.flushHeaders();
  // A client that goes away ends the remote's answer too (a watch stops there).
  reply.raw.on('close', () => upstream.destroy());
  await pipeline(upstream, reply.raw).catch(() => reply.raw.destroy());
}

/**
 * An HTTP upgrade (a watch over WebSocket, an exec-like subresource of the remote's): the
 * request head is rewritten with the front-proxy headers and sent over a new TLS connection,
 * then both sockets are piped, the remote's 101 and everything after it passing through.
 * Resolves false when the request is no upgrade.
 */
export async function forwardUpgrade(
  request: FastifyRequest,
  reply: FastifyReply,
  target: ProxyTarget,
  user: UserInfo,
  timeoutMs: number,
  open: OpenStreams,
): Promise<boolean> {
  const connection = upgradeOf(request);
  if (!connection) return false;
  const headers = outgoingHeaders(request, target, user);
  let head = `${request.method} ${request.url} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(headers)) for (const one of [value ?? []].flat()) head += `${name}: ${String(one)}\r\n`;
  for (const name of ['connection', 'upgrade']) {
    const value = request.headers[name];
    if (typeof value === 'string') head += `${name}: ${value}\r\n`;
  }
  head += '\r\n';
  const remote = await dialTls({ ...target.remote.tls, host: target.host, port: target.port }, timeoutMs, {
    unreachable: (error) => unreachable(target, error),
    late: () => unreachable(target, new Error(`no connection within ${timeoutMs} ms`)),
  });
  reply.hijack();
  track(open, connection.socket);
  spliceUpgrade(connection, remote, head);
  return true;
}
