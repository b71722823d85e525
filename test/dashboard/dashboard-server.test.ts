/**
 * svc dashboard's server (src/dashboard): the page and its script from one origin, and the
 * GET-only proxy that reads the cluster with the user's credential — the page sends none —
 * refusing writes, other host names (DNS rebinding) and cross-site requests with Status answers.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin } from '../../src/client/index.js';
import { startDashboard, type Dashboard } from '../../src/dashboard/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';

let cluster: TestCluster;
let dashboard: Dashboard;

beforeAll(async () => {
  cluster = await startTestCluster({ namespaces: ['dash'] });
  dashboard = await startDashboard({ connection: cluster.connection, port: 0 });
});
afterAll(async () => {
  await dashboard?.close();
  await cluster?.stop();
});

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A raw request, so the test chooses the Host header and method itself. */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: dashboard.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('svc dashboard server', () => {
  it('serves the page with a script-only-from-self policy, and the bundled script', async () => {
    const page = await send('GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.body).toContain('<script type="module" src="/ui/app.js"></script>');
    const script = await send('GET', '/ui/app.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.body).toContain('/apis'); // the discovery call, bundled
  });

  it("answers the Controllers view's stream with a 404 Status when no controller manager was named, and refuses writes to it", async () => {
    const missing = await send('GET', '/controllers/live');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
    expect(JSON.parse(missing.body).message).toContain('controller manager');
    const post = await send('POST', '/controllers/live', {}, '{}');
    expect(post.status).toBe(405);
  });

  it('reads the cluster through the proxy with no credential from the page', async () => {
    await cluster.client.create(builtin.configMaps, { metadata: { name: 'seen', namespace: 'dash' }, data: { a: '1' } });
    const list = await send('GET', '/api/v1/namespaces/dash/configmaps');
    expect(list.status).toBe(200);
    expect((JSON.parse(list.body) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name)).toContain('seen');
    const table = await send('GET', '/api/v1/namespaces/dash/configmaps', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(JSON.parse(table.body)).toMatchObject({ kind: 'Table', columnDefinitions: expect.any(Array) });
    expect((await send('GET', '/apis')).status).toBe(200);
    expect((await send('GET', '/version')).status).toBe(200);
  });

  it('passes the API server\'s own Status answers through', async () => {
    const missing = await send('GET', '/api/v1/namespaces/dash/configmaps/not-there');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('streams a watch through the proxy', async () => {
    const lines = await new Promise<string>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: dashboard.port, path: '/api/v1/namespaces/dash/configmaps?watch=true&resourceVersion=0' }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('"name":"watched"')) {
            req.destroy();
            resolve(text);
          }
        });
      });
      req.on('error', reject);
      req.end();
      void cluster.client.create(builtin.configMaps, { metadata: { name: 'watched', namespace: 'dash' } }).catch(reject);
    });
    expect(lines).toContain('"type":"ADDED"');
  });

  it.each([
    ['POST', '/api/v1/namespaces/dash/configmaps'],
    ['PUT', '/api/v1/namespaces/dash/configmaps/seen'],
    ['PATCH', '/api/v1/namespaces/dash/configmaps/seen'],
    ['DELETE', '/api/v1/namespaces/dash/configmaps/seen'],
  ])('refuses %s with a 405 Status and changes nothing', async (method, path) => {
    const answer = await send(method, path, { 'content-type': 'application/json' }, JSON.stringify({ metadata: { name: 'written', namespace: 'dash' } }));
    expect(answer.status).toBe(405);
    expect(answer.headers['allow']).toBe('GET, HEAD');
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'MethodNotAllowed', code: 405 });
    const names = (await cluster.client.list(builtin.configMaps, { namespace: 'dash' })).items.map((i) => i.metadata.name);
    expect(names).not.toContain('written');
    expect(names).toContain('seen');
  });

  it('refuses a connection upgrade (exec, attach, port-forward) with a 403 Status', async () => {
    const answer = await send('GET', '/api/v1/namespaces/dash/pods/any/exec?command=sh&stdout=true', {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'sec-websocket-protocol': 'v5.channel.k8s.io',
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403 });
  });

  it('refuses a host name other than loopback (DNS rebinding) with a 403 Status', async () => {
    const answer = await send('GET', '/api/v1/namespaces/dash/configmaps', { host: 'evil.example.com:8001' });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(answer.body).not.toContain('seen');
  });

  it.each(['cross-site', 'same-site'])('refuses a request from another origin (Sec-Fetch-Site: %s) with a 403 Status', async (site) => {
    const answer = await send('GET', '/api/v1/namespaces/dash/configmaps', { 'sec-fetch-site': site });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(answer.body).not.toContain('"seen"');
  });

  it.each(['same-origin', 'none'])('serves a browser request with Sec-Fetch-Site: %s', async (site) => {
    expect((await send('GET', '/api/v1/namespaces/dash/configmaps', { 'sec-fetch-site': site })).status).toBe(200);
  });

  it('answers a path it does not serve with a 404 Status, and proxies nothing outside the API', async () => {
    for (const path of ['/nope', '/healthz', '/metrics', '/browser-session']) {
      const answer = await send('GET', path);
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    }
  });
});
