import type { FastifyInstance } from 'fastify';
import { tooManyRequests } from '../api/index.js';

const READS = new Set(['GET', 'HEAD']);

/** The reads of one `User-Agent` the server is to refuse: which paths (with the query), how many more times. */
interface Refusal {
  readonly agent: string;
  readonly which: (path: string) => boolean;
  left: number;
  refused: number;
}

/**
 * Reads the test server refuses on the test's word, with the 429 TooManyRequests (a Status) its
 * flow control answers when it is overloaded: a client's handling of a transient refusal, tested
 * against the real server. Everything else passes through.
 */
export class ReadRefusals {
  readonly #refusals: Refusal[] = [];

  /** Hooks into `app`: call before it listens (Fastify takes no hooks after that). */
  install(app: FastifyInstance): void {
    // After authentication, as flow control refuses a known user's request.
    app.addHook('preValidation', (request, _reply, done) => {
      if (!READS.has(request.method)) return done();
      const agent = request.headers['user-agent'] ?? '';
      const refusal = this.#refusals.find((r) => r.left > 0 && r.agent === agent && r.which(request.url));
      if (refusal === undefined) return done();
      refusal.left -= 1;
      refusal.refused += 1;
      done(tooManyRequests('Too many requests, please try again later.', 1));
    });
  }

  /** Refuses the next `times` reads of `agent` whose path `which` accepts; `refused()` counts those refused so far. */
  refuse(agent: string, which: (path: string) => boolean, times = 1): { refused(): number } {
    const refusal: Refusal = { agent, which, left: times, refused: 0 };
    this.#refusals.push(refusal);
    return { refused: () => refusal.refused };
  }
}
