import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unauthorized } from '../../src/api/index.js';
import { buildApp } from '../../src/apiserver/index.js';
import { MemoryStore } from '../../src/storage/index.js';

/** pino's JSON lines, as the server writes them at -v 0 (the level serve.ts gives verbosity 0: warn). */
function captureLog() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe('the API server logs every 5xx at the default verbosity', () => {
  const log = captureLog();
  const store = new MemoryStore();
  let app: Awaited<ReturnType<typeof buildApp>>;
  beforeAll(async () => {
    app = await buildApp({
      store,
      authorization: ['AlwaysAllow'],
      authenticate: (headers) => {
        if (headers['authorization'] === 'Bearer alice-token') return { name: 'alice', uid: 'u-alice', groups: ['system:authenticated'] };
        throw unauthorized('Unauthorized');
      },
      logger: { level: 'warn', stream: log.stream },
    });
  });
  afterAll(async () => {
    await app.close();
    await store.close();
  });

  it('names the verb, the path, the user and the error of a request answered 500', async () => {
    await store.create(`${store.prefix}core/configmaps/default/broken`, new TextEncoder().encode('{"kind":'));
    const res = await app.inject({ method: 'GET', url: '/api/v1/namespaces/default/configmaps/broken?pretty=1', headers: { authorization: 'Bearer alice-token' } });
    expect(res.statusCode).toBe(500);
    const line = log.lines.find((l) => l['path'] === '/api/v1/namespaces/default/configmaps/broken');
    expect(line).toMatchObject({ level: 50, verb: 'get', user: 'alice', code: 500, reason: 'StorageReadError' });
    expect(String(line!['msg'])).toContain('/registry/core/configmaps/default/broken');
  });

  it('does not log the 4xx answers: they are the caller\'s mistakes', async () => {
    const before = log.lines.length;
    expect((await app.inject({ method: 'GET', url: '/api/v1/namespaces/default/configmaps/missing', headers: { authorization: 'Bearer alice-token' } })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/api/v1/namespaces', headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
    const malformed = { authorization: 'Bearer alice-token', 'content-type': 'application/json' };
    expect((await app.inject({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', headers: malformed, payload: '{' })).statusCode).toBe(400);
    expect(log.lines.slice(before).filter((l) => (l['level'] as number) >= 40)).toEqual([]);
  });

  it('logs a 503 from a store that stopped answering, with the write that met it', async () => {
    await store.close();
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/namespaces/default/configmaps',
      headers: { authorization: 'Bearer alice-token', 'content-type': 'application/json' },
      payload: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } }),
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(500);
    const line = log.lines.find((l) => l['verb'] === 'create');
    expect(line).toMatchObject({ level: 50, user: 'alice', path: '/api/v1/namespaces/default/configmaps', code: res.statusCode });
  });
});
