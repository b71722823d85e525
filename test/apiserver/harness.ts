import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { unauthorized } from '../../src/api/index.js';
import { buildApp, type ApiServerOptions, type UserInfo } from '../../src/apiserver/index.js';
import { SYSTEM_NAMESPACES } from '../../src/apiserver/namespaces.js';
import { MemoryStore, SqliteStore, type Store } from '../../src/storage/index.js';
import { openEtcdStore } from '../../src/storage/etcd.js';
import { startEtcd } from '../support/etcd.js';

export const TOKEN = 'test-admin-token';
export const USER: UserInfo = { name: 'tester', uid: 'u-1', groups: ['system:masters', 'system:authenticated'] };

export interface CallResult {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

export interface TestServer {
  app: FastifyInstance;
  store: Store;
  /**
   * `http://127.0.0.1:<port>` when started with `listen: true` (streams such as watches need a
   * real connection: `inject` only answers once the response has ended); undefined otherwise.
   */
  url: string | undefined;
  /** `inject` with the test token and JSON bodies; returns status and parsed JSON. */
  call(method: string, url: string, body?: unknown, init?: Partial<InjectOptions>): Promise<CallResult>;
  /** Like `call`, over a real HTTP connection to `url` (needs `listen: true`). */
  http(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<CallResult>;
  close(): Promise<void>;
}

/** buildApp options a test may set, and whether the server also listens over plain HTTP. */
export type TestServerOptions = Pick<
  ApiServerOptions,
  | 'maxRequestBodyBytes'
  | 'watchHistoryWindowMs'
  | 'bookmarkIntervalMs'
  | 'watchBufferEvents'
  | 'minRequestTimeoutSeconds'
  | 'tooLargeResourceVersionWaitMs'
  | 'continueTokenKey'
  | 'featureGates'
  | 'registry'
  | 'admissionPlugins'
  | 'corsAllowedOrigins'
  | 'browserSessions'
  | 'cacheEvents'
  | 'eventTtlSeconds'
> & {
  /** Listen on 127.0.0.1, a free port, plain HTTP (see TestServer.url). Default: inject only. */
  listen?: boolean;
};

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // not JSON: keep the text
  }
}

export type BackendName = 'memory' | 'sqlite' | 'etcd';

/** A store of the given backend over fresh data, and how to get rid of it. */
export async function openTestStore(backend: BackendName): Promise<{ store: Store; dispose(): Promise<void> }> {
  if (backend === 'memory') {
    const store = new MemoryStore();
    return { store, dispose: () => store.close() };
  }
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-api-'));
    const store = new SqliteStore({ path: join(dir, 'state.db') });
    return { store, dispose: async () => (await store.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  const etcd = await startEtcd();
  const store = await openEtcdStore({ endpoints: [etcd.endpoint] });
  return { store, dispose: async () => (await store.close(), await etcd.stop()) };
}

/** The API server in-process (Fastify inject, and HTTP with `listen`) over a fresh store of `backend`. */
export async function startTestServer(backend: BackendName, options: TestServerOptions = {}): Promise<TestServer> {
  const { listen, ...appOptions } = options;
  const { store, dispose } = await openTestStore(backend);
  const app = await buildApp({
    store,
    authenticate: (headers) => {
      const auth = headers['authorization'];
      if (auth === undefined) return undefined;
      if (auth === `Bearer ${TOKEN}`) return USER;
      throw unauthorized('Unauthorized');
    },
    ...appOptions,
  });
  // The API server does not make accounts (the controller manager's serviceaccount loop does):
  // the server starts as a cluster whose loop has run once, so pods in the system namespaces find
  // their `default` account. A test that makes a namespace and a pod in it creates its account.
  for (const namespace of SYSTEM_NAMESPACES) {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/namespaces/${namespace}/serviceaccounts`,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }),
    });
    // 404: a registry without ServiceAccounts.
    if (res.statusCode !== 201 && res.statusCode !== 404) throw new Error(`creating ${namespace}/default ServiceAccount: ${res.statusCode} ${res.body}`);
  }
  let url: string | undefined;
  if (listen) {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('the test server has no TCP address');
    url = `http://127.0.0.1:${address.port}`;
  }
  return {
    app,
    store,
    url,
    async call(method, url, body, init = {}) {
      const { headers: extraHeaders, ...rest } = init;
      const res = await app.inject({
        method: method as InjectOptions['method'],
        url,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(extraHeaders as object),
        },
        ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
        ...rest,
      } as InjectOptions);
      return { status: res.statusCode, body: parseBody(res.body), headers: res.headers };
    },
    async http(method, path, body, headers = {}) {
      if (!url) throw new Error('http() needs a server started with listen: true');
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: parseBody(await res.text()), headers: Object.fromEntries(res.headers) };
    },
    async close() {
      await app.close();
      await dispose();
    },
  };
}

/**
 * A second API server on `store`, not listening: the writes another server makes behind the
 * first one's back (its watch cache and last-written versions know nothing of them).
 */
export async function startSecondServer(store: Store): Promise<{ call(method: string, url: string, body?: unknown, contentType?: string): Promise<CallResult>; close(): Promise<void> }> {
  const app = await buildApp({
    store,
    authenticate: (headers) => {
      if (headers['authorization'] === `Bearer ${TOKEN}`) return USER;
      throw unauthorized('Unauthorized');
    },
  });
  return {
    async call(method, url, body, contentType = 'application/json') {
      const res = await app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      return { status: res.statusCode, body: JSON.parse(res.body), headers: res.headers };
    },
    close: () => app.close(),
  };
}
