/**
 * The API servers of one cluster a client may send to, and the one it sends to now. Several
 * servers on one store serve the same API, so a client that cannot reach one moves on to the
 * next and stays there (no flapping back while the first restarts); see docs/client.md#failover.
 */

/** Where one server is: its origin and the path prefix its API lives under. */
export interface ServerAddress {
  readonly origin: string;
  readonly base: string;
}

/** Socket errors that happen before a request is sent: it reached no server, so any request may go to the next. */
const UNREACHED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);
/** Errors of a connection that broke after the request may have been sent: the server may have acted on it. */
const BROKEN = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_HEADERS_TIMEOUT']);

function codeOf(error: unknown): string | undefined {
  // undici wraps the socket's error as `cause` in some paths (fetch), and throws it itself in others (request).
  for (let e: unknown = error, depth = 0; e !== null && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNREACHED.has(code) || BROKEN.has(code))) return code;
  }
  return undefined;
}

export class ServerList {
  readonly #servers: readonly ServerAddress[];
  #current = 0;

  constructor(urls: readonly string[]) {
    const seen = new Set<string>();
    const servers: ServerAddress[] = [];
    for (const text of urls) {
      const url = new URL(text);
      const address = { origin: url.origin, base: url.pathname.replace(/\/+$/, '') };
      const key = address.origin + address.base;
      if (seen.has(key)) continue;
      seen.add(key);
      servers.push(address);
    }
    this.#servers = servers;
  }

  get size(): number {
    return this.#servers.length;
  }

  get current(): ServerAddress {
    return this.#servers[this.#current]!;
  }

  /**
   * Runs `send` against the current server; when it fails with a connection error and another
   * server is listed, the next one becomes current. The request is sent again there when it
   * reached no server, or when `idempotent` (a GET, a watch): a write whose connection broke
   * after sending may have been applied, so its error is the caller's to judge.
   */
  async send<T>(idempotent: boolean, send: (server: ServerAddress) => Promise<T>): Promise<T> {
    for (let tried = 1; ; tried++) {
      const server = this.current;
      try {
        return await send(server);
      } catch (error) {
        const code = codeOf(error);
        if (code === undefined || this.#servers.length === 1) throw error;
        this.#moveOn(server);
        if (tried >= this.#servers.length || !(idempotent || UNREACHED.has(code))) throw error;
      }
    }
  }

  /** A connection to `failed` broke: the next server becomes current, unless another request already moved on. */
  #moveOn(failed: ServerAddress): void {
    if (this.current === failed) this.#current = (this.#current + 1) % this.#servers.length;
  }

  /** For a request sent outside `send` (a WebSocket): its connection to `failed` broke. */
  failed(failed: ServerAddress, error: unknown): void {
    if (this.#servers.length > 1 && codeOf(error) !== undefined) this.#moveOn(failed);
  }
}
