import type { Dispatcher } from 'undici';
import type WebSocket from 'ws';
import type { Codec } from './wire-codec.js';
import { statusErrorFrom } from './status.js';
import { ConnectionPool, type ConnectionOptions, type RequestThrottle } from './connection-pool.js';

export type { ConnectionOptions, RequestThrottle } from './connection-pool.js';

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
