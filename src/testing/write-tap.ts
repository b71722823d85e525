import type { FastifyInstance, FastifyRequest } from 'fastify';

/** A write as the server answered it: what was asked and the answer, body included. */
export interface TappedWrite {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  /** The request body (undefined when it had none). */
  readonly request?: Buffer | undefined;
  readonly requestType?: string | undefined;
  readonly code: number;
  readonly contentType?: string | undefined;
  /** The response body (undefined when it had none). */
  readonly body?: Buffer | undefined;
}

/** What a replay answers a write with: a recorded answer, or undefined to let the server serve it. */
export type WriteAnswerer = (
  write: Pick<TappedWrite, 'method' | 'path' | 'request' | 'requestType'>,
) => Omit<TappedWrite, 'method' | 'path' | 'request' | 'requestType'> | undefined;

/** Runs before the server serves a write: a test's own writes here land first (the write it holds then races them). */
export type WriteInterleaver = (write: Pick<TappedWrite, 'method' | 'path' | 'request' | 'requestType'>) => Promise<void>;

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The test server's view of the writes each client makes, told apart by `User-Agent`: a recorder
 * hears every answered write of its agent (the server's real answer), a replayer answers its
 * agent's writes itself (the recorded answer, the store untouched). Everything else passes through.
 */
export class WriteTap {
  readonly #listeners = new Map<string, (write: TappedWrite) => void>();
  readonly #answerers = new Map<string, WriteAnswerer>();
  readonly #interleavers = new Map<string, WriteInterleaver>();
  #writes = 0;
  readonly #byAgent = new Map<string, number>();

  /** Hooks into `app`: call before it listens (Fastify takes no hooks after that). */
  install(app: FastifyInstance): void {
    // After authentication and body parsing: a replayed write still needs a good token, and is compared by its body.
    app.addHook('preValidation', (request, reply, done) => {
      if (READS.has(request.method)) return done();
      const interleaver = this.#interleavers.get(request.headers['user-agent'] ?? '');
      if (interleaver !== undefined) {
        // The test's writes go first; the held write is then served as the server would have (a
        // resourceVersion they moved on makes it a real 409 Conflict).
        interleaver({ method: request.method, path: request.url, ...requestBody(request) }).then(() => done(), done);
        return;
      }
      const answerer = this.#answerers.get(request.headers['user-agent'] ?? '');
      const answer = answerer?.({ method: request.method, path: request.url, ...requestBody(request) });
      if (answer === undefined) return done();
      void reply
        .code(answer.code)
        .header('content-type', answer.contentType ?? 'application/json')
        .send(answer.body ?? '');
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      if (READS.has(request.method)) return done(null, payload);
      const agent = request.headers['user-agent'] ?? '';
      if (this.#answerers.has(agent)) return done(null, payload); // a replayed answer is no server write
      this.#writes += 1;
      this.#byAgent.set(agent, (this.#byAgent.get(agent) ?? 0) + 1);
      const listener = this.#listeners.get(agent);
      if (listener) {
        const contentType = reply.getHeader('content-type');
        listener({
          method: request.method,
          path: request.url,
          ...requestBody(request),
          code: reply.statusCode,
          contentType: typeof contentType === 'string' ? contentType : undefined,
          body: typeof payload === 'string' ? Buffer.from(payload) : Buffer.isBuffer(payload) ? payload : undefined,
        });
      }
      done(null, payload);
    });
  }

  /** Writes the server answered (replayed ones aside), all clients or one `User-Agent`'s. */
  writes(agent?: string): number {
    return agent === undefined ? this.#writes : this.#byAgent.get(agent) ?? 0;
  }

  /** Hears each write of `agent` once answered; returns the way to stop. */
  listen(agent: string, listener: (write: TappedWrite) => void): () => void {
    this.#listeners.set(agent, listener);
    return () => void this.#listeners.delete(agent);
  }

  /**
   * Holds each write of `agent` until `interleaver` settles, then lets the server serve it: a
   * test makes a concurrent write land at an exact point of a controller's work (a conflict
   * deterministically). Returns the way to stop.
   */
  interleave(agent: string, interleaver: WriteInterleaver): () => void {
    this.#interleavers.set(agent, interleaver);
    return () => void this.#interleavers.delete(agent);
  }

  /** Answers the writes of `agent` with `answerer`; returns the way to stop. */
  answer(agent: string, answerer: WriteAnswerer): () => void {
    this.#answerers.set(agent, answerer);
    return () => void this.#answerers.delete(agent);
  }
}

function requestBody(request: FastifyRequest): { request?: Buffer; requestType?: string } {
  const body = request.body;
  const type = request.headers['content-type'];
  const bytes = Buffer.isBuffer(body) ? body : typeof body === 'string' ? Buffer.from(body) : undefined;
  return { ...(bytes && bytes.length > 0 ? { request: bytes } : {}), ...(type ? { requestType: type } : {}) };
}
