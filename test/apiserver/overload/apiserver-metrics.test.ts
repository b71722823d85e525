import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from '../../../src/cli/apiserver-command.js';
import { sample } from './prometheus-text.js';

const CM = '/api/v1/namespaces/default/configmaps';

describe('/metrics on the API server, scraped over HTTPS with a real token', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-metrics-'));
  let server: RunningApiServer;
  let agent: Agent;
  beforeAll(async () => {
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'scraper-token,scraper,u-s,"system:monitoring"\nalice-token,alice,u-a\n');
    server = await startApiServer(['--storage=sqlite', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'data')}`, `--token-auth-file=${tokens}`]);
    agent = new Agent({ connect: { ca: server.caPem! } });
  });
  afterAll(async () => {
    await agent?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (token: string, method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await request(`${server.url}${path}`, {
      dispatcher: agent,
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.statusCode, type: String(res.headers['content-type']), text: await res.body.text() };
  };
  const scrape = async () => {
    const res = await call('scraper-token', 'GET', '/metrics');
    expect(res.status).toBe(200);
    return res.text;
  };

  it('is served in the Prometheus text format to system:monitoring, and refused to others (get on the non-resource URL /metrics)', async () => {
    const ok = await call('scraper-token', 'GET', '/metrics');
    expect(ok.status).toBe(200);
    expect(ok.type).toContain('text/plain');
    for (const name of [
      'apiserver_request_total',
      'apiserver_request_duration_seconds',
      'apiserver_current_inflight_requests',
      'apiserver_longrunning_requests',
      'apiserver_registered_watchers',
      'apiserver_watch_events_total',
      'etcd_request_duration_seconds',
      'apiserver_watch_cache_events_received_total',
      'apiserver_watch_cache_capacity',
      'apiserver_flowcontrol_rejected_requests_total',
    ]) {
      expect(ok.text).toContain(`# TYPE ${name} `);
    }
    // The scrape is itself a read-only request in flight.
    expect(sample(ok.text, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' })).toBe(1);
    const refused = await call('alice-token', 'GET', '/metrics');
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
  });

  it('counts requests by verb, resource, scope and code, their latency, and the storage operations under them', async () => {
    const before = await scrape();
    const get = { verb: 'GET', group: '', version: 'v1', resource: 'configmaps', scope: 'resource', component: 'apiserver' };
    const created = await call(server.adminToken, 'POST', CM, { metadata: { name: 'counted' } });
    expect(created.status).toBe(201);
    expect((await call(server.adminToken, 'GET', `${CM}/counted`)).status).toBe(200);
    expect((await call(server.adminToken, 'GET', `${CM}/missing`)).status).toBe(404);
    expect((await call(server.adminToken, 'GET', CM)).status).toBe(200);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(delta('apiserver_request_total', { ...get, code: '200' })).toBe(1);
    expect(delta('apiserver_request_total', { ...get, code: '404' })).toBe(1);
    expect(delta('apiserver_request_total', { verb: 'POST', resource: 'configmaps', scope: 'namespace', code: '201' })).toBe(1);
    expect(delta('apiserver_request_total', { verb: 'LIST', resource: 'configmaps', scope: 'namespace', code: '200' })).toBe(1);
    expect(delta('apiserver_request_duration_seconds_count', get)).toBe(2);
    expect(delta('etcd_request_duration_seconds_count', { operation: 'create', type: 'configmaps' })).toBeGreaterThanOrEqual(1);
    // The scrapes themselves, as non-resource requests.
    expect(sample(after, 'apiserver_request_total', { verb: 'GET', subresource: '/metrics', code: '200' })).toBeGreaterThanOrEqual(1);
  });

  it('counts requests for made-up resources under their path prefix, so clients cannot mint series', async () => {
    for (const name of ['madeup-1', 'madeup-2']) expect((await call(server.adminToken, 'GET', `/api/v1/namespaces/default/${name}`)).status).toBe(404);
    expect((await call(server.adminToken, 'GET', '/apis/made.up/v9/things')).status).toBe(404);
    const text = await scrape();
    expect(text).not.toContain('madeup');
    expect(text).not.toContain('made.up');
    expect(sample(text, 'apiserver_request_total', { verb: 'GET', subresource: '/api', code: '404' })).toBe(2);
    expect(sample(text, 'apiserver_request_total', { verb: 'GET', subresource: '/apis', code: '404' })).toBe(1);
  });

  it('gauges a watch while it runs and counts the events it is sent and the cache received', async () => {
    const before = await scrape();
    const watch = await request(`${server.url}${CM}?watch=1`, { dispatcher: agent, headers: { authorization: `Bearer ${server.adminToken}` } });
    expect(watch.statusCode).toBe(200);
    const during = await scrape();
    expect(sample(during, 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'configmaps' })).toBe(1);
    expect(sample(during, 'apiserver_registered_watchers', { kind: 'ConfigMap' })).toBeGreaterThanOrEqual(1);

    expect((await call(server.adminToken, 'POST', CM, { metadata: { name: 'watched' } })).status).toBe(201);
    const reader = watch.body[Symbol.asyncIterator]();
    let seen = '';
    while (!seen.includes('"watched"')) seen += String((await reader.next()).value);
    const sent = await scrape();
    expect(sample(sent, 'apiserver_watch_events_total', { kind: 'ConfigMap' })! - (sample(before, 'apiserver_watch_events_total', { kind: 'ConfigMap' }) ?? 0)).toBeGreaterThanOrEqual(1);
    expect(sample(sent, 'apiserver_watch_cache_events_received_total', { resource: 'configmaps' })!).toBeGreaterThan(sample(before, 'apiserver_watch_cache_events_received_total', { resource: 'configmaps' }) ?? 0);
    expect(sample(sent, 'apiserver_watch_cache_capacity', { resource: 'configmaps' })).toBeGreaterThanOrEqual(1);

    watch.body.destroy();
    let after = await scrape();
    while (sample(after, 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'configmaps' }) !== 0) after = await scrape();
    expect(sample(after, 'apiserver_request_total', { verb: 'WATCH', resource: 'configmaps', code: '200' })).toBe(1);
  });
});
