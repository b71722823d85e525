import type { SecureContextOptions } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
import type WebSocket from 'ws';
import type { Codec } from './wire-codec.js';
import { ServerList } from './server-list.js';
import { statusErrorFrom } from './status.js';
import { createSecureContext } from '../tls-connections/index.js';

/** Where and as whom to connect; a resolved svcconfig context is one (see `Client.fromSvcconfig`). */
export interface ConnectionOptions {
  /** Base URL, `https://host:port` (plain `http://` works too, for tests). */
  readonly server: string;
  /**
   * Further servers of the same cluster (API servers on one store), tried in order when a
   * connection to the current one fails: the client moves on and stays on the server that
   * answers ([client.md](../../docs/client.md#several-servers-failover)).
   */
  readonly servers?: readonly string[] | undefined;
  /** Bearer token sent on every request. */
  readonly token?: string | undefined;
  /** Asked for the bearer token before every request, in place of `token` (a rotating service-account token: `fileTokenSource`). */
  readonly tokenSource?: (() => string | Promise<string>) | undefined;
  /** PEM of the CA that signed the server's certificate; unset: the system's CAs. */
  readonly caData?: string | undefined;
  /** PEM client certificate and key (mutual TLS). */
  readonly clientCertificate?: string | undefined;
  readonly clientKey?: string | undefined;
  /**
   * Asked for the client certificate and key at every new connection, in place of
   * `clientCertificate`/`clientKey`: a credential that rotates (the node agent's
   * `--rotate-certificates`). Connections already open keep the pair they were made with.
   */
  readonly clientCertificateSource?: (() => { readonly cert: string; readonly key: string }) | undefined;
  /** Accept any server certificate. Default false. */
  readonly insecureSkipTlsVerify?: boolean | undefined;
  /** Idle keep-alive sockets are closed after this long. Default 30 s. */
  readonly keepAliveTimeoutMs?: number | undefined;
  /**
   * Most sockets that requests hold to the server at once; more requests wait for a free one.
   * Default unlimited. When set, streamed responses (watches, followed logs), which hold a socket
   * for minutes, go through a pool of their own, one socket each, so that they never take one of
   * these and a thousand concurrent requests never open a thousand sockets and TLS handshakes
   * ([client.md](../../docs/client.md#connections)).
   */
  readonly connections?: number | undefined;
  /** Answers slower than this to arrive (headers) fail; default 60 s. Watches use their own timer. */
  readonly requestTimeoutMs?: number | undefined;
  /** `User-Agent`; default `svc-client`. */
  readonly userAgent?: string | undefined;
  /**
   * Awaited before every request (watches included) is sent: resolves when it may go. The
   * controller manager fills it with a token bucket (`--svc-api-qps`, `--svc-api-burst`); the
   * client layer only knows the shape, so it needs no rate-limiting code of its own.
   */
  readonly throttle?: RequestThrottle | undefined;
}

/** Resolves when the request may be sent; rejects (with the request's abort reason) to drop it. */
export type RequestThrottle = (request: { readonly method: string; readonly path: string; readonly signal?: AbortSignal | undefined }) => Promise<void>;

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Record<string, string | number | boolean | undefined>;
  readonly body?: unknown;
  /** Defaults to the codec's media type when there is a body. */
  readonly contentType?: string;
  /** Overrides the codec's `Accept` (a view such as PartialObjectMetadata). */
  readonly accept?: string;
  readonly signal?: AbortSignal;
  /** Decodes the 2xx body instead of the codec (the lazy list decoder). */
  readonly decode?: ((bytes: Uint8Array, contentType: string | undefined) => unknown) | undefined;
}

/** An open streaming response: iterate `body`; destroy it (or abort the signal) to hang up. */
export interface StreamResponse {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown };
}

/** Keep-alive HTTPS to one server (or the first of several that answers) through an undici Agent, with the credentials of a svcconfig. */
export class Transport {
  /** The sockets and where they go: this transport's own, or those of the transport it was derived from. */
  readonly #pool: ConnectionPool;
  readonly #options: ConnectionOptions;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #throttle: RequestThrottle | undefined;
  readonly #tokenSource: (() => string | Promise<string>) | undefined;

  /** `pool`: the connections of another transport (`derive`); unset: connections of its own. */
  constructor(
    options: ConnectionOptions,
    readonly codec: Codec,
    pool?: ConnectionPool,
  ) {
    this.#options = options;
    this.#timeoutMs = options.requestTimeoutMs ?? 60_000;
    this.#throttle = options.throttle;
    this.#tokenSource = options.tokenSource;
    this.#headers = {
      accept: codec.mediaType,
      'user-agent': options.userAgent ?? 'svc-client',
      ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
    };
    this.#pool = pool ?? new ConnectionPool(options);
  }

  /** The `User-Agent` every request of this transport sends. */
  get userAgent(): string {
    return this.#headers['user-agent']!;
  }

  /**
   * A transport on this one's connections (the same bounded pool, watch sockets, servers and
   * credentials) with a user agent and a throttle of its own: one token bucket per control loop
   * without a socket more (docs/client.md#one-connection-pool-several-rate-limits).
   */
  derive(overrides: { readonly userAgent?: string | undefined; readonly throttle?: RequestThrottle | undefined }): Transport {
    return new Transport({ ...this.#options, ...overrides }, this.codec, this.#pool);
  }


  async #dispatch(req: HttpRequest, streaming: boolean): Promise<Dispatcher.ResponseData> {
    if (this.#throttle !== undefined) await this.#throttle({ method: req.method, path: req.path, signal: req.signal });
    const headers: Record<string, string> = { ...this.#headers };
    if (this.#tokenSource !== undefined) headers['authorization'] = `Bearer ${await this.#tokenSource()}`;
    if (req.accept !== undefined) headers['accept'] = req.accept;
    let body: string | Uint8Array | undefined;
    if (req.body !== undefined) {
      if (typeof req.body === 'string') {
        body = req.body;
        headers['content-type'] = req.contentType ?? 'application/json';
      } else if (req.contentType !== undefined) {
        // Patches and delete options name their own (JSON-based) type.
        body = JSON.stringify(req.body);
        headers['content-type'] = req.contentType;
      } else {
        const encoded = this.codec.encode(req.body);
        body = encoded.body;
        headers['content-type'] = encoded.contentType;
      }
    }
    return this.#pool.servers.send(req.method === 'GET', (server) =>
      this.#pool.current(streaming).request({
        origin: server.origin,
        path: server.base + req.path + queryString(req.query),
        method: req.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        ...(req.signal ? { signal: req.signal } : {}),
        headersTimeout: this.#timeoutMs,
        // A watch may be quiet for minutes: its own stall timer watches it instead.
        bodyTimeout: streaming ? 0 : this.#timeoutMs,
      }),
    );
  }

  /** One request; resolves to the decoded 2xx body, rejects with a StatusError otherwise. */
  async request(req: HttpRequest): Promise<unknown> {
    const res = await this.#dispatch(req, false);
    const bytes = new Uint8Array(await res.body.arrayBuffer());
    const contentType = headerValue(res.headers['content-type']);
    if (res.statusCode < 200 || res.statusCode > 299) throw statusErrorFrom(res.statusCode, this.#decodeLoosely(bytes, contentType, req.decode));
    return bytes.length === 0 ? undefined : req.decode ? req.decode(bytes, contentType) : this.codec.decode(bytes, contentType);
  }

  /** A request whose 2xx body is read as a stream (watches); a non-2xx answer rejects with a StatusError. */
  async stream(req: HttpRequest): Promise<StreamResponse> {
    const res = await this.#dispatch(req, true);
    if (res.statusCode < 200 || res.statusCode > 299) {
      const bytes = new Uint8Array(await res.body.arrayBuffer());
      throw statusErrorFrom(res.statusCode, this.#decodeLoosely(bytes, headerValue(res.headers['content-type']), req.decode));
    }
    return { headers: res.headers, body: res.body };
  }

  /**
   * A WebSocket to `path` (exec, attach, port-forward), offering `protocols`; resolves, paused
   * (call `resume()` once listening), when the server has accepted the upgrade and chosen one. A refusal (401, 403, 404, 400 …) rejects with
   * the StatusError of the server's answer. The `ws` package is loaded by the first call.
   */
  async websocket(path: string, query: URLSearchParams, protocols: readonly string[]): Promise<WebSocket> {
    if (this.#throttle !== undefined) await this.#throttle({ method: 'GET', path });
    const { WebSocket } = await loadWs();
    const headers: Record<string, string> = { 'user-agent': this.#headers['user-agent']! };
    const authorization = this.#tokenSource !== undefined ? `Bearer ${await this.#tokenSource()}` : this.#headers['authorization'];
    if (authorization !== undefined) headers['authorization'] = authorization;
    const text = query.toString();
    const server = this.#pool.servers.current;
    const url = `${server.origin.replace(/^http/, 'ws')}${server.base}${path}${text ? `?${text}` : ''}`;
    const socket = new WebSocket(url, [...protocols], { ...this.#pool.tls, headers, handshakeTimeout: this.#timeoutMs });
    return new Promise<WebSocket>((resolve, reject) => {
      socket.once('open', () => {
        socket.removeAllListeners('error');
        // Paused until the caller has its listeners on: a message sent right behind the 101 (a
        // port-forward's port prefix) would otherwise be emitted before the promise's continuation runs.
        socket.pause();
        resolve(socket);
      });
      socket.once('error', (error) => {
        this.#pool.servers.failed(server, error);
        reject(error);
      });
      socket.once('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          reject(statusErrorFrom(res.statusCode ?? 500, this.#decodeLoosely(bytes, headerValue(res.headers['content-type']))));
          socket.terminate();
        });
      });
    });
  }

  #decodeLoosely(bytes: Uint8Array, contentType: string | undefined, decode?: HttpRequest['decode']): unknown {
    try {
      // A request that reads its own encoding (a protobuf list) reads its Status too.
      return decode ? decode(bytes, contentType) : this.codec.decode(bytes, contentType);
    } catch {
      return Buffer.from(bytes).toString('utf8');
    }
  }

  /** Closes idle sockets and waits for in-flight requests; open watches should be unsubscribed first. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  /** Ends every socket now, in-flight requests and watches included (those of derived transports too: they are the same). A second call does nothing. */
  destroy(): Promise<void> {
    return this.#pool.destroy();
  }
}

/**
 * The connections of a transport and of every transport derived from it: the undici Agents (the
 * requests' pool, bounded by `connections`, and the streams'), the servers to try, and the TLS
 * settings, the client certificate's rotation included.
 */
export class ConnectionPool {
  /** Requests' pool, bounded by `connections`. */
  #agent: Agent;
  /** Streams' pool: `#agent` itself when requests are unbounded, else one of its own. */
  #streamAgent: Agent;
  readonly #agentOptions: Agent.Options;
  readonly #certificateSource: ConnectionOptions['clientCertificateSource'];
  #pair: { readonly cert: string; readonly key: string } | undefined;
  readonly servers: ServerList;
  /** The TLS settings of every connection, the undici Agent's and the WebSockets' alike. */
  readonly tls: SecureContextOptions & { readonly rejectUnauthorized: boolean };

  constructor(options: ConnectionOptions) {
    this.servers = new ServerList([options.server, ...(options.servers ?? [])]);
    this.tls = {
      ...(options.caData !== undefined ? { ca: options.caData } : {}),
      ...(options.clientCertificate !== undefined ? { cert: options.clientCertificate } : {}),
      ...(options.clientKey !== undefined ? { key: options.clientKey } : {}),
      rejectUnauthorized: !(options.insecureSkipTlsVerify ?? false),
    };
    this.#agentOptions = {
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
      ...(options.connections !== undefined ? { connections: options.connections } : {}),
    };
    this.#certificateSource = options.clientCertificateSource;
    const connect = sharedContext(this.tls);
    this.#agent = new Agent({ ...this.#agentOptions, connect });
    this.#streamAgent = this.#streamPool(connect);
  }

  /** The streams' agent for these TLS settings: unbounded, and apart from the requests' when those are bounded. */
  #streamPool(connect: Agent.Options['connect']): Agent {
    if (this.#agentOptions.connections === undefined) return this.#agent;
    const { connections: _bounded, ...unbounded } = this.#agentOptions;
    return new Agent({ ...unbounded, connect });
  }

  /**
   * The agent to send with. With a rotating client certificate, a new pair gets a new agent and
   * the old one's connections are closed, watches too (they reconnect), as the kubelet closes
   * its connections on rotation: the server reads the certificate once per connection, so a
   * connection kept open would go on as the old certificate until it expires, and then fail.
   */
  current(streaming: boolean): Agent {
    if (this.#certificateSource !== undefined) {
      const pair = this.#certificateSource();
      if (pair.cert !== this.#pair?.cert || pair.key !== this.#pair.key) {
        const old = new Set([this.#agent, this.#streamAgent]);
        this.#pair = pair;
        const connect = sharedContext({ ...this.tls, cert: pair.cert, key: pair.key });
        this.#agent = new Agent({ ...this.#agentOptions, connect });
        this.#streamAgent = this.#streamPool(connect);
        for (const agent of old) void agent.destroy().catch(() => undefined);
      }
    }
    return streaming ? this.#streamAgent : this.#agent;
  }

  async close(): Promise<void> {
    await Promise.all(this.#agents().map((agent) => (agent.closed || agent.destroyed ? undefined : agent.close())));
  }

  async destroy(): Promise<void> {
    await Promise.all(this.#agents().map((agent) => (agent.destroyed ? undefined : agent.destroy())));
  }

  #agents(): Agent[] {
    return [...new Set([this.#agent, this.#streamAgent])];
  }
}

/**
 * The TLS options with one SecureContext built from them, which every connection of the agent
 * shares: without it Node builds a context per connection (the CA's PEM parsed into a store of
 * its own each time), which a client holding a thousand watches paid a thousand times, in CPU at
 * connect and in memory for as long as each socket lived.
 */
function sharedContext<T extends SecureContextOptions>(tls: T): T & { readonly secureContext: ReturnType<typeof createSecureContext> } {
  return { ...tls, secureContext: createSecureContext(tls) };
}

/** `ws`, loaded by the first WebSocket: a client that never execs never loads it. */
let ws: Promise<typeof import('ws')> | undefined;
const loadWs = () => (ws ??= import('ws'));

/** A response header's one value (undici gives repeated headers as arrays). */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function queryString(query: HttpRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
