// The service proxy against real iptables, in a network namespace of its own (the host's rules
// are never touched): two HTTP servers behind a ClusterIP Service and a NodePort, reached with
// busybox wget through the proxy's DNAT; endpoints changing; a restart that keeps the rules; a
// stop that removes every one.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../src/api/index.js';
import { builtin, InformerFactory, type Client } from '../../src/client/index.js';
import { Iptables, startServiceProxy, type ProxySync, type ServiceProxy } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../controllers/support.js';

const ns = `svcproxy${process.pid}`;
const prefix = 'SPTEST-';
const exec = ['ip', 'netns', 'exec', ns];
let cluster: TestCluster;
let client: Client;
let dir: string;
const servers: ChildProcess[] = [];
const proxies: { proxy: ServiceProxy; informers: InformerFactory }[] = [];
const syncs: ProxySync[] = [];

const sh = (args: string[]) => {
  const result = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
};
// Asynchronous: the proxy runs in this process and must keep syncing while clients wait.
// (busybox's -T crashes the static build here; the child's timeout bounds the wait instead.)
const wget = (url: string) =>
  new Promise<{ ok: boolean; out: string; err: string }>((resolve) => {
    execFile('ip', ['netns', 'exec', ns, 'busybox', 'wget', '-O', '-', url], { encoding: 'utf8', timeout: 3000 }, (error, out, err) => resolve({ ok: !error, out: out.trim(), err }));
  });
const fetchIn = async (url: string): Promise<string | undefined> => {
  const result = await wget(url);
  return result.ok ? result.out : undefined;
};
const answers = async (url: string, tries = 30) => {
  const seen = new Set<string>();
  for (let i = 0; i < tries; i++) seen.add((await fetchIn(url)) ?? 'failed');
  return seen;
};
const both = async (url: string) => {
  const seen = await answers(url, 20);
  return seen.has('hello-a') && seen.has('hello-b');
};
const saved = () => sh([...exec, 'iptables-save']);

const startProxy = () => {
  const informers = new InformerFactory(client);
  const proxy = startServiceProxy({ client, informers, prefix, nodeName: 'n1', podCidr: '10.99.0.0/24', iptables: new Iptables(exec), onSync: (s) => syncs.push(s), onError: (e) => console.error('proxy:', e) });
  proxies.push({ proxy, informers });
  return proxy;
};
const stopProxy = async (cleanup: boolean) => {
  const last = proxies.pop()!;
  await last.proxy.stop({ cleanup });
  last.informers.stop();
};

const web: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default' },
  spec: { type: 'NodePort', clusterIP: '10.0.0.10', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080, nodePort: 30080 }], selector: { app: 'web' } },
};
const slice = (ips: string[]): EndpointSlice => ({
  apiVersion: 'discovery.svc.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'web-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: ips.map((ip) => ({ addresses: [ip], nodeName: 'n1', conditions: { ready: true, serving: true, terminating: false } })),
});
const setEndpoints = async (ips: string[]) => {
  const current = await client.get(builtin.endpointSlices, 'web-1', { namespace: 'default' });
  await client.update(builtin.endpointSlices, { ...slice(ips), metadata: current.metadata }, { namespace: 'default' });
};

beforeAll(async () => {
  sh(['ip', 'netns', 'add', ns]);
  sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
  sh(['ip', '-n', ns, 'link', 'add', 'd0', 'type', 'veth', 'peer', 'name', 'd1']);
  sh(['ip', '-n', ns, 'link', 'set', 'd1', 'up']);
  sh(['ip', '-n', ns, 'addr', 'add', '10.99.0.2/24', 'dev', 'd0']);
  sh(['ip', '-n', ns, 'addr', 'add', '10.99.0.3/24', 'dev', 'd0']);
  sh(['ip', '-n', ns, 'link', 'set', 'd0', 'up']);
  sh(['ip', '-n', ns, 'route', 'add', 'default', 'dev', 'd0']);
  dir = mkdtempSync(join(tmpdir(), 'svc-proxy-'));
  for (const [name, ip] of [['a', '10.99.0.2'], ['b', '10.99.0.3']] as const) {
    const root = join(dir, name);
    sh(['mkdir', '-p', root]);
    writeFileSync(join(root, 'index.html'), `hello-${name}\n`);
    servers.push(spawn('ip', ['netns', 'exec', ns, 'busybox', 'httpd', '-f', '-p', `${ip}:8080`, '-h', root], { stdio: 'ignore' }));
  }
  await eventually(async () => (await fetchIn('http://10.99.0.2:8080/')) === 'hello-a' && (await fetchIn('http://10.99.0.3:8080/')) === 'hello-b', 'the servers');
  cluster = await startTestCluster();
  client = cluster.client;
  await client.create(builtin.services, web, { namespace: 'default' });
  await client.create(builtin.endpointSlices, slice(['10.99.0.2', '10.99.0.3']), { namespace: 'default' });
});

afterAll(async () => {
  while (proxies.length > 0) await stopProxy(true);
  for (const server of servers) server.kill();
  await cluster?.stop();
  spawnSync('ip', ['netns', 'del', ns]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('service proxy (iptables, in a network namespace)', () => {
  it('routes a ClusterIP and a NodePort over every endpoint', async () => {
    await startProxy().ready;
    await eventually(() => both('http://10.0.0.10/'), 'both endpoints through the cluster IP');
    expect(await answers('http://10.0.0.10/', 40)).toEqual(new Set(['hello-a', 'hello-b']));
    expect(await answers('http://10.99.0.2:30080/', 40)).toEqual(new Set(['hello-a', 'hello-b']));
  });

  it('follows endpoint changes with a delta of that endpoint\'s rules; no endpoint rejects at once', async () => {
    syncs.length = 0;
    await setEndpoints(['10.99.0.2']);
    await eventually(() => syncs.some((s) => s.key === 'default/web'), 'a sync of web');
    expect(await answers('http://10.0.0.10/', 10)).toEqual(new Set(['hello-a']));
    // The leaver's line and its chain's two lines, and when it was not first, the first one's line moved into its slot (-D, -I).
    expect(syncs.find((s) => s.key === 'default/web')!.rules).toBeLessThanOrEqual(5);
    await setEndpoints([]);
    await eventually(async () => (await wget('http://10.0.0.10/')).err.includes('refused'), 'refused at once');
    expect(await wget('http://10.99.0.2:30080/')).toMatchObject({ ok: false, err: expect.stringMatching(/refused/) });
    await setEndpoints(['10.99.0.2', '10.99.0.3']);
    await eventually(() => both('http://10.0.0.10/'), 'both back');
  });

  it('keeps the rules when it stops without cleanup, and makes them exact when it starts again', async () => {
    await stopProxy(false);
    expect(await answers('http://10.0.0.10/', 20)).toEqual(new Set(['hello-a', 'hello-b']));
    // While it is down, the Service goes: the next proxy removes its chains.
    await client.delete(builtin.services, 'web', { namespace: 'default' });
    expect(saved()).toContain(`${prefix}SVC-`);
    await startProxy().ready;
    await eventually(() => !saved().includes(`${prefix}SVC-`), 'the stale chains removed');
    await client.create(builtin.services, web, { namespace: 'default' });
    await eventually(() => both('http://10.0.0.10/'), 'routed again');
  });

  it('removes every chain and jump it made when it stops with cleanup', async () => {
    await stopProxy(true);
    expect(saved()).not.toContain(prefix);
    expect(await fetchIn('http://10.0.0.10/')).toBeUndefined();
  });
});
