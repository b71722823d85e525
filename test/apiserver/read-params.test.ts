import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

describe('the watch parameter', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory');
  });
  afterAll(async () => {
    await s.close();
  });

  it.each(['maybe', 'yes', '2'])('watch=%s is a 400, not a silent list', async (value) => {
    const before = await s.store.revision();
    const res = await s.call('GET', `/api/v1/namespaces/default/configmaps?watch=${value}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(res.body.message).toContain('watch');
    expect(await s.store.revision()).toBe(before);
  });

  it.each(['0', 'false'])('watch=%s lists', async (value) => {
    const res = await s.call('GET', `/api/v1/namespaces/default/configmaps?watch=${value}`);
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('ConfigMapList');
  });
});
