/**
 * A svc-apiserver in-process over plain HTTP for client tests, with server-side counters a test
 * can read: every request (path and query), the watches open now, and levers to break them
 * (hang up every watch; make the next watch find its version compacted).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Client, type ClientOptions } from '../../src/client/index.js';
import { startTestServer, TOKEN, type TestServer, type TestServerOptions } from '../apiserver/harness.js';
import { WAIT_MS } from '../support/wait.js';

export interface ClientTestServer {
  readonly s: TestServer;
  readonly client: Client;
  /** Every request's URL (path and query), in arrival order. */
  readonly requests: string[];
  /** Watch responses open now. */
  readonly watches: Set<ServerResponse>;
  /** Hangs up every open watch (the client sees its connection reset). */
  dropWatches(): number;
  /**
   * Arms a lever: the next watch request that asks for a version older than the store's newest
   * finds the store compacted at the newest (it gets ERROR 410), as if the client had been away
   * too long. Returns how many times the lever has fired so far.
   */
  expireNextWatch(): void;
  readonly expiries: () => number;
  newClient(options?: Partial<ClientOptions>): Client;
  close(): Promise<void>;
}

const isWatch = (url: string) => /[?&]watch=(1|true)(&|$)/.test(url);

export async function startClientTestServer(options: TestServerOptions = {}): Promise<ClientTestServer> {
  const s = await startTestServer('memory', { listen: true, ...options });
  const requests: string[] = [];
  const watches = new Set<ServerResponse>();
  let armed = false;
  let fired = 0;
  // MemoryStore's revision, read synchronously (test-only knowledge of its internals).
  const storeRevision = () => (s.store as unknown as { data: { revision: number } }).data.revision;
  // Prepended: runs before Fastify's handler, so a compaction here is in place when it reads.
  s.app.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    requests.push(url);
    if (!isWatch(url)) return;
    watches.add(res);
    res.on('close', () => watches.delete(res));
    const rv = Number(new URL(url, 'http://x').searchParams.get('resourceVersion') ?? '');
    const latest = storeRevision();
    if (armed && rv > 0 && rv < latest) {
      // MemoryStore.compact does its work before its first await: done before the handler reads.
      void s.store.compact(latest);
      armed = false;
      fired += 1;
    }
  });
  const clients: Client[] = [];
  const newClient = (extra: Partial<ClientOptions> = {}) => {
    const client = new Client({ server: s.url!, token: TOKEN, ...extra });
    clients.push(client);
    return client;
  };
  const client = newClient();
  return {
    s,
    client,
    requests,
    watches,
    dropWatches() {
      const n = watches.size;
      for (const res of watches) res.destroy();
      return n;
    },
    expireNextWatch() {
      armed = true;
    },
    expiries: () => fired,
    newClient,
    async close() {
      await Promise.all(clients.map((c) => c.destroy()));
      await s.close();
    },
  };
}

/** Resolves when `predicate` holds, checking after each tick; fails with `what` after a generous guard. */
export async function until(predicate: () => boolean, what: string, guardMs = WAIT_MS): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > guardMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export const cm = (name: string, data: Record<string, string> = { v: '1' }, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

/** Fast back-off for tests (the values are not asserted anywhere). */
export const FAST = { backoff: { initialMs: 5, maxMs: 50 } } as const;
