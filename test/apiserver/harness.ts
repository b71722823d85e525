import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { unauthorized } from '../../src/api/index.js';
import { buildApp, type UserInfo } from '../../src/apiserver/index.js';
import { MemoryStore, SqliteStore, type Store } from '../../src/storage/index.js';
import { openEtcdStore } from '../../src/storage/etcd.js';
import { startEtcd } from '../support/etcd.js';

export const TOKEN = 'test-admin-token';
export const USER: UserInfo = { name: 'tester', uid: 'u-1', groups: ['system:masters', 'system:authenticated'] };

export interface TestServer {
  app: FastifyInstance;
  store: Store;
  /** `inject` with the test token and JSON bodies; returns status and parsed JSON. */
  call(method: string, url: string, body?: unknown, init?: Partial<InjectOptions>): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
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

/** The API server in-process (Fastify inject) over a fresh store of `backend`. */
export async function startTestServer(backend: BackendName, options: { maxRequestBodyBytes?: number } = {}): Promise<TestServer> {
  const { store, dispose } = await openTestStore(backend);
  const app = await buildApp({
    store,
    authenticate: (headers) => {
      const auth = headers['authorization'];
      if (auth === undefined) return undefined;
      if (auth === `Bearer ${TOKEN}`) return USER;
      throw unauthorized('Unauthorized');
    },
    ...options,
  });
  return {
    app,
    store,
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
      let parsed: unknown = res.body;
      try {
        parsed = JSON.parse(res.body);
      } catch {
        // not JSON: keep the text
      }
      return { status: res.statusCode, body: parsed, headers: res.headers };
    },
    async close() {
      await app.close();
      await dispose();
    },
  };
}
