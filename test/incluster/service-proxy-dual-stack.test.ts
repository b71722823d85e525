// The service proxy against real iptables and ip6tables, in a network namespace of its own: a
// dual-stack Service reached over its IPv4 and IPv6 cluster IPs, an external IP and a
// load-balancer ingress IP routed like the node port, and the conntrack entries of a UDP endpoint
// deleted when the endpoint goes (entries made with the conntrack tool, as DNAT makes them).
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../src/api/index.js';
import { builtin, InformerFactory, type Client } from '../../src/client/index.js';
import { Conntrack, Iptables, startServiceProxy, type ServiceProxy } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../controllers/support.js';

const ns = `svcproxy6${process.pid}`;
const prefix = 'SP6TEST-';
const exec = ['ip', 'netns', 'exec', ns];
let cluster: TestCluster;
let client: Client;
let dir: string;
let proxy: ServiceProxy | undefined;
let informers: InformerFactory | undefined;
const servers: ChildProcess[] = [];
const errors: unknown[] = [];
const synced: string[] = [];

const sh = (args: string[]) => {
  const result = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
};
const fetchIn = (url: string) =>
  new Promise<string | undefined>((resolve) => {
    execFile('ip', ['netns', 'exec', ns, 'busybox', 'wget', '-O', '-', url], { encoding: 'utf8', timeout: 3000 }, (error, out) => resolve(error ? undefined : out.trim()));
  });
const answers = async (url: string, tries = 20) => {
  const seen = new Set<string>();
  for (let i = 0; i < tries; i++) seen.add((await fetchIn(url)) ?? 'failed');
  return seen;
};
const both = async (url: string) => {
  const seen = await answers(url);
  return seen.has('hello-a') && seen.has('hello-b');
};
const labels = { 'kubernetes.io/service-name': 'web' };

const web: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    type: 'LoadBalancer',
    clusterIP: '10.0.0.10',
    clusterIPs: ['10.0.0.10', 'fd00:10::10'],
    ipFamilies: ['IPv4', 'IPv6'],
    ipFamilyPolicy: 'RequireDualStack',
    externalIPs: ['10.98.0.50'],
    ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080, nodePort: 30080 }],
    selector: { app: 'web' },
  },
};
const dns: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'dns', namespace: 'default' },
  spec: { type: 'ClusterIP', clusterIP: '10.0.0.53', ports: [{ name: 'dns', port: 53, protocol: 'UDP', targetPort: 5353 }], selector: { app: 'dns' } },
};
const slice = (name: string, service: string, addressType: 'IPv4' | 'IPv6', ips: string[], port: { name: string; port: number; protocol: 'TCP' | 'UDP' }): EndpointSlice => ({
  apiVersion: 'discovery.svc.io/v1',
  kind: 'EndpointSlice',
  metadata: { name, namespace: 'default', labels: { 'kubernetes.io/service-name': service } },
  addressType,
  ports: [port],
  endpoints: ips.map((ip) => ({ addresses: [ip], nodeName: 'n1', conditions: { ready: true, serving: true, terminating: false } })),
});
const udpEntries = () => spawnSync('ip', ['netns', 'exec', ns, 'conntrack', '-L', '-p', 'udp'], { encoding: 'utf8' }).stdout;

beforeAll(async () => {
  sh(['ip', 'netns', 'add', ns]);
  sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
  sh(['ip', '-n', ns, 'link', 'add', 'd0', 'type', 'veth', 'peer', 'name', 'd1']);
  sh(['ip', '-n', ns, 'link', 'set', 'd1', 'up']);
  sh(['ip', '-n', ns, 'addr', 'add', '10.99.0.2/24', 'dev', 'd0']);
  sh(['ip', '-n', ns, 'addr', 'add', '10.99.0.3/24', 'dev', 'd0']);
  sh(['ip', '-n', ns, '-6', 'addr', 'add', 'fd00:99::2/64', 'dev', 'd0', 'nodad']);
  sh(['ip', '-n', ns, '-6', 'addr', 'add', 'fd00:99::3/64', 'dev', 'd0', 'nodad']);
  sh(['ip', '-n', ns, 'link', 'set', 'd0', 'up']);
  sh(['ip', '-n', ns, 'route', 'add', 'default', 'dev', 'd0']);
  sh(['ip', '-n', ns, '-6', 'route', 'add', 'default', 'dev', 'd0']);
  dir = mkdtempSync(join(tmpdir(), 'svc-proxy6-'));
  for (const name of ['a', 'b'] as const) {
    const root = join(dir, name);
    sh(['mkdir', '-p', root]);
    writeFileSync(join(root, 'index.html'), `hello-${name}\n`);
    const last = name === 'a' ? '2' : '3';
    // One server per address family and endpoint (busybox httpd binds one address).
    servers.push(spawn('ip', ['netns', 'exec', ns, 'busybox', 'httpd', '-f', '-p', `10.99.0.${last}:8080`, '-h', root], { stdio: 'ignore' }));
    servers.push(spawn('ip', ['netns', 'exec', ns, 'busybox', 'httpd', '-f', '-p', `[fd00:99::${last}]:8080`, '-h', root], { stdio: 'ignore' }));
  }
  await eventually(async () => (await fetchIn('http://[fd00:99::2]:8080/')) === 'hello-a' && (await fetchIn('http://10.99.0.3:8080/')) === 'hello-b', 'the servers');
  cluster = await startTestCluster({ apiServer: { serviceNetwork: { clusterIpRange: '10.0.0.0/24,fd00:10::/112' } } });
  client = cluster.client;
  const http = { name: 'http', port: 8080, protocol: 'TCP' } as const;
  await client.create(builtin.endpointSlices, slice('web-v4', 'web', 'IPv4', ['10.99.0.2', '10.99.0.3'], http), { namespace: 'default' });
  await client.create(builtin.endpointSlices, slice('web-v6', 'web', 'IPv6', ['fd00:99::2', 'fd00:99::3'], http), { namespace: 'default' });
  await client.create(builtin.endpointSlices, slice('dns-v4', 'dns', 'IPv4', ['10.99.0.2', '10.99.0.3'], { name: 'dns', port: 5353, protocol: 'UDP' }), { namespace: 'default' });
  informers = new InformerFactory(client);
  proxy = startServiceProxy({
    client,
    informers,
    prefix,
    nodeName: 'n1',
    podCidr: '10.99.0.0/24',
    podCidrV6: 'fd00:99::/64',
    iptables: new Iptables(exec),
    ip6tables: new Iptables(exec, 6),
    conntrack: new Conntrack(exec),
    onSync: (sync) => synced.push(sync.key),
    onError: (e) => errors.push(e),
  });
}, 60_000);

afterAll(async () => {
  await proxy?.stop({ cleanup: true });
  informers?.stop();
  for (const server of servers) server.kill();
  await cluster?.stop();
  spawnSync('ip', ['netns', 'del', ns]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('service proxy, dual stack (iptables and ip6tables, in a network namespace)', () => {
  it('routes the IPv4 and the IPv6 cluster IP, each over its own family\'s endpoints', async () => {
    const created = await client.create(builtin.services, web, { namespace: 'default' });
    expect(created.spec?.clusterIPs).toEqual(['10.0.0.10', 'fd00:10::10']);
    await proxy!.ready;
    await eventually(() => both('http://10.0.0.10/'), 'both endpoints over IPv4');
    await eventually(() => both('http://[fd00:10::10]/'), 'both endpoints over IPv6');
    const saved6 = sh([...exec, 'ip6tables-save', '-t', 'nat']);
    expect(saved6).toContain(`-d fd00:10::10/128 -p tcp -m tcp --dport 80`);
    expect(saved6).toMatch(/--to-destination \[fd00:99::2\]:8080/);
    expect(sh([...exec, 'iptables-save', '-t', 'nat'])).not.toContain('fd00:');
  });

  it('routes an external IP and a load-balancer ingress IP like the node port; REJECTs them without endpoints', async () => {
    await eventually(() => both('http://10.98.0.50/'), 'the external IP');
    const current = await client.get(builtin.services, 'web', { namespace: 'default' });
    await client.updateStatus(builtin.services, { ...current, status: { loadBalancer: { ingress: [{ ip: '10.98.0.60' }] } } }, { namespace: 'default' });
    await eventually(() => both('http://10.98.0.60/'), 'the load-balancer IP');
    // No endpoint: refused at once (the filter REJECT), not a timeout.
    const v4 = await client.get(builtin.endpointSlices, 'web-v4', { namespace: 'default' });
    await client.update(builtin.endpointSlices, { ...v4, endpoints: [] }, { namespace: 'default' });
    await eventually(() => sh([...exec, 'iptables-save', '-t', 'filter']).includes('-d 10.98.0.60/32 -p tcp -m tcp --dport 80'), 'the REJECT of the load-balancer IP');
    expect(await fetchIn('http://10.98.0.50/')).toBeUndefined();
    expect(await fetchIn('http://10.98.0.60/')).toBeUndefined();
    // IPv6 is unaffected.
    expect(await both('http://[fd00:10::10]/')).toBe(true);
  });

  it('deletes the UDP conntrack entries of an endpoint that goes, and keeps the others\'', async () => {
    await client.create(builtin.services, dns, { namespace: 'default' });
    // Its first sync is over (rules written, and the entries of a port that had no endpoint flushed).
    await eventually(() => synced.includes('default/dns'), 'the UDP Service\'s sync');
    expect(sh([...exec, 'iptables-save', '-t', 'nat'])).toContain('-d 10.0.0.53/32 -p udp');
    // Two clients' entries as the DNAT would have made them, one to each endpoint.
    for (const [client_, endpoint] of [['10.99.0.9', '10.99.0.2'], ['10.99.0.8', '10.99.0.3']] as const) {
      sh([...exec, 'conntrack', '-I', '-p', 'udp', '-s', client_, '-d', '10.0.0.53', '--sport', '5000', '--dport', '53', '-r', endpoint, '-q', client_, '--reply-port-src', '5353', '--reply-port-dst', '5000', '-t', '300']);
    }
    expect(udpEntries()).toContain('src=10.99.0.2');
    const current = await client.get(builtin.endpointSlices, 'dns-v4', { namespace: 'default' });
    await client.update(builtin.endpointSlices, { ...current, endpoints: current.endpoints!.filter((e) => e.addresses[0] !== '10.99.0.2') }, { namespace: 'default' });
    await eventually(() => !udpEntries().includes('src=10.99.0.2'), 'the gone endpoint\'s entry deleted');
    expect(udpEntries()).toContain('src=10.99.0.3');
    expect(errors).toEqual([]);
  });

  it('removes its IPv4 and IPv6 chains when it stops with cleanup', async () => {
    await proxy!.stop({ cleanup: true });
    proxy = undefined;
    expect(sh([...exec, 'iptables-save'])).not.toContain(prefix);
    expect(sh([...exec, 'ip6tables-save'])).not.toContain(prefix);
  });
});
