import type { SecureContextOptions } from 'node:tls';
import { Agent } from 'undici';
import { ServerList } from './server-list.js';
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
