import type { InjectOptions } from 'fastify';
import { unauthorized } from '../../src/api/index.js';
import { buildApp } from '../../src/apiserver/index.js';
import { openTestStore, TOKEN, USER, type BackendName, type TestServer } from './harness.js';

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Like harness.ts's startTestServer (inject only), with feature gates. */
export async function startWritesServer(backend: BackendName, featureGates: Record<string, boolean> = {}): Promise<TestServer> {
  const { store, dispose } = await openTestStore(backend);
  const app = await buildApp({
    store,
    featureGates,
    authenticate: (headers) => {
      const auth = headers['authorization'];
      if (auth === undefined) return undefined;
      if (auth === `Bearer ${TOKEN}`) return USER;
      throw unauthorized('Unauthorized');
    },
  });
  return {
    app,
    store,
    url: undefined,
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
    async http() {
      throw new Error('startWritesServer serves inject only');
    },
    async close() {
      await app.close();
      await dispose();
    },
  };
}
