import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/apiserver/index.js';
import { SqliteStore } from '../../../src/storage/index.js';
import { USER } from '../harness.js';
import { widgetCrd } from './fixtures.js';

async function serve(path: string) {
  const store = new SqliteStore({ path });
  const app = await buildApp({ store, authenticate: () => USER });
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await app.inject({ method, url, headers: { 'content-type': 'application/json' }, ...(body ? { payload: JSON.stringify(body) } : {}) });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };
  return { call, close: async () => (await app.close(), await store.close()) };
}

describe('custom resources across an API server restart', () => {
  it('are served at once by a server started over the same sqlite file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-crd-restart-'));
    const path = join(dir, 'state.db');
    try {
      const first = await serve(path);
      expect((await first.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd())).status).toBe(201);
      for (let i = 0; i < 100 && (await first.call('GET', '/apis/example.com/v1/namespaces/default/widgets')).status !== 200; i++) await new Promise((r) => setTimeout(r, 20));
      expect((await first.call('POST', '/apis/example.com/v1/namespaces/default/widgets', { metadata: { name: 'kept' }, spec: { size: 'small' } })).status).toBe(201);
      await first.close();

      const second = await serve(path);
      const got = await second.call('GET', '/apis/example.com/v1/namespaces/default/widgets/kept');
      expect(got.status).toBe(200);
      expect(got.body.spec).toEqual({ size: 'small', replicas: 1, color: 'blue' });
      expect((await second.call('GET', '/apis/example.com/v1')).body.resources[0].name).toBe('widgets');
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
