// A client given several servers (ConnectionOptions.servers, the svcconfig extension
// servers.svc.io): a request that reached no server goes on to the next one; a GET whose
// connection broke is sent again there; a write whose connection broke after it was sent is the
// caller's error (it may have been applied) and is not sent twice; the client stays on the
// server that answered. Real sockets: a port nothing listens on, a server that hangs up on every
// request, and one that answers.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client, loadSvcconfig, SvcconfigError, writeSvcconfig } from '../../src/client/index.js';

interface Recorder {
  readonly url: string;
  readonly seen: string[];
  readonly server: Server;
}

async function serve(handler: (req: IncomingMessage, res: import('node:http').ServerResponse, seen: string[]) => void): Promise<Recorder> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    handler(req, res, seen);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen, server };
}

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', resourceVersion: '7' } });

describe('a client with several servers', () => {
  let good: Recorder;
  let breaker: Recorder;
  let deadUrl: string;
  const dir = mkdtempSync(join(tmpdir(), 'svc-failover-'));

  beforeAll(async () => {
    good = await serve((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(configMap(req.method === 'POST' ? 'created' : 'read')));
      });
    });
    // Reads the request, then hangs up without an answer: the connection broke after sending.
    breaker = await serve((req) => {
      req.resume();
      req.on('end', () => req.socket.destroy());
    });
    const gone = await serve(() => undefined);
    deadUrl = gone.url;
    await new Promise<void>((resolve) => gone.server.close(() => resolve()));
  });
  afterAll(async () => {
    for (const r of [good, breaker]) await new Promise<void>((resolve) => r.server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a request that reached no server (connection refused) to the next, a write too, and stays there', async () => {
    const client = new Client({ server: deadUrl, servers: [good.url] });
    good.seen.length = 0;
    const created = await client.create(builtin.configMaps, configMap('x'), { namespace: 'default' });
    expect(created.metadata.name).toBe('created');
    expect((await client.get(builtin.configMaps, 'x', { namespace: 'default' })).metadata.name).toBe('read');
    expect(good.seen).toEqual(['POST /api/v1/namespaces/default/configmaps', 'GET /api/v1/namespaces/default/configmaps/x']);
    await client.destroy();
  });

  it('sends a GET whose connection broke to the next server', async () => {
    const client = new Client({ server: breaker.url, servers: [good.url] });
    breaker.seen.length = 0;
    good.seen.length = 0;
    expect((await client.get(builtin.configMaps, 'y', { namespace: 'default' })).metadata.name).toBe('read');
    expect(breaker.seen).toEqual(['GET /api/v1/namespaces/default/configmaps/y']);
    expect(good.seen).toEqual(['GET /api/v1/namespaces/default/configmaps/y']);
    await client.destroy();
  });

  it('does not send a write twice when its connection broke after sending, but sends the next request to the next server', async () => {
    const client = new Client({ server: breaker.url, servers: [good.url] });
    breaker.seen.length = 0;
    good.seen.length = 0;
    await expect(client.create(builtin.configMaps, configMap('z'), { namespace: 'default' })).rejects.toThrow();
    expect(breaker.seen).toEqual(['POST /api/v1/namespaces/default/configmaps']);
    expect(good.seen).toEqual([]);
    expect((await client.create(builtin.configMaps, configMap('z'), { namespace: 'default' })).metadata.name).toBe('created');
    expect(breaker.seen).toHaveLength(1);
    expect(good.seen).toEqual(['POST /api/v1/namespaces/default/configmaps']);
    await client.destroy();
  });

  it('with one server, reports a broken connection and sends nothing again', async () => {
    const client = new Client({ server: breaker.url });
    breaker.seen.length = 0;
    await expect(client.get(builtin.configMaps, 'w', { namespace: 'default' })).rejects.toThrow();
    expect(breaker.seen).toEqual(['GET /api/v1/namespaces/default/configmaps/w']);
    await client.destroy();
  });

  it('reads and writes the servers in the svcconfig extension servers.svc.io, and refuses a malformed one', async () => {
    const path = join(dir, 'ha.svcconfig');
    await writeSvcconfig(path, { name: 'ha', server: deadUrl, servers: [good.url], token: 't' });
    const target = await loadSvcconfig(path);
    expect(target.server).toBe(deadUrl);
    expect(target.servers).toEqual([good.url]);
    const client = await Client.fromSvcconfig(path);
    expect((await client.get(builtin.configMaps, 'v', { namespace: 'default' })).metadata.name).toBe('read');
    await client.destroy();

    const single = join(dir, 'one.svcconfig');
    await writeSvcconfig(single, { name: 'one', server: good.url });
    expect((await loadSvcconfig(single)).servers).toEqual([]);

    const bad = join(dir, 'bad.svcconfig');
    writeFileSync(
      bad,
      ['apiVersion: v1', 'kind: Config', 'current-context: c', 'clusters:', '- name: c', '  cluster:', `    server: ${good.url}`, '    extensions:', '    - name: servers.svc.io', '      extension: {servers: [not a url]}', 'contexts:', '- name: c', '  context: {cluster: c}', ''].join('\n'),
    );
    await expect(loadSvcconfig(bad)).rejects.toThrow(SvcconfigError);
    await expect(loadSvcconfig(bad)).rejects.toThrow(/servers\.svc\.io/);
  });
});
