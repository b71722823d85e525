import { Pool } from 'undici';

export interface LoadOptions {
  /** Origin, e.g. `http://127.0.0.1:8080`. Loopback only. */
  origin: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path of request `i` (lets a create name each object). */
  path: (i: number) => string;
  headers?: Record<string, string>;
  body?: (i: number) => string;
  /** Concurrent requests in flight (one keep-alive connection each). */
  connections?: number;
  /** Requests to send in all: the loop is bounded by count... */
  requests: number;
  /** ...and by time, whichever ends first. */
  maxMs?: number;
  /** Status every response must have. */
  expectStatus?: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * A closed-loop load generator on undici: `connections` workers each send one request, wait for
 * the whole response, and send the next, until `requests` are done or `maxMs` has passed.
 */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const connections = options.connections ?? 32;
  const pool = new Pool(options.origin, { connections, pipelining: 1 });
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + (options.maxMs ?? 30_000);
  const worker = async () => {
    while (next < options.requests && performance.now() < deadline) {
      const i = next++;
      const t0 = performance.now();
      try {
        const res = await pool.request({
          method: options.method ?? 'GET',
          path: options.path(i),
          headers: options.headers ?? {},
          ...(options.body ? { body: options.body(i) } : {}),
        });
        await res.body.arrayBuffer();
        if (options.expectStatus !== undefined && res.statusCode !== options.expectStatus) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    errors,
    seconds,
    perSecond: Math.round(latencies.length / seconds),
    p50Ms: Number(at(0.5).toFixed(2)),
    p99Ms: Number(at(0.99).toFixed(2)),
  };
}
