// The cluster DNS server over real UDP and TCP sockets, fed by informers of a test cluster: every
// record type the Kubernetes DNS specification names, NXDOMAIN and NODATA with the SOA, names
// outside the cluster forwarded, and malformed packets answered FORMERR without harm.
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import * as dns from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, InformerFactory } from '../../src/client/index.js';
import { startClusterDns, type ClusterDns } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../controllers/support.js';

let cluster: TestCluster;
let server: ClusterDns;
let informers: InformerFactory;
const upstream = createSocket('udp4');
let nextId = 1;

const udpExchange = (message: Buffer): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error('no answer'));
    }, 3000);
    socket.on('message', (answer) => {
      clearTimeout(timer);
      socket.close();
      resolve(answer);
    });
    socket.send(message, server.port, '127.0.0.1');
  });

const query = async (name: string, type: dns.RecordType) => {
  const id = nextId++;
  const answer = dns.decode(await udpExchange(dns.encode({ type: 'query', id, flags: dns.RECURSION_DESIRED, questions: [{ name, type }] })));
  expect(answer.id).toBe(id);
  return answer;
};
// dns-packet decodes the response code; its typings leave it out.
const rcode = (packet: dns.DecodedPacket): string | undefined => (packet as dns.DecodedPacket & { rcode?: string }).rcode;
const data = (packet: dns.DecodedPacket, type: string) => (packet.answers ?? []).filter((a) => a.type === type).map((a) => (a as { data: unknown }).data);

beforeAll(async () => {
  // The "host's resolver": a real UDP server that knows one outside name.
  upstream.on('message', (message, remote) => {
    const q = dns.decode(message);
    const question = q.questions![0]!;
    const known = question.name === 'example.org' && question.type === 'A';
    upstream.send(
      dns.encode({ type: 'response', id: q.id, flags: known ? 0 : 3, questions: [question], answers: known ? [{ type: 'A', name: 'example.org', ttl: 60, data: '192.0.2.80' }] : [] }),
      remote.port,
      remote.address,
    );
  });
  await new Promise<void>((resolve) => upstream.bind(0, '127.0.0.1', resolve));

  cluster = await startTestCluster({ namespaces: ['shop'] });
  const client = cluster.client;
  const ns = { namespace: 'shop' };
  await client.create(builtin.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { clusterIP: '10.0.0.20', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } }, ns);
  await client.create(builtin.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'st', namespace: 'shop' }, spec: { clusterIP: 'None', ports: [{ name: 'peer', port: 7000, protocol: 'TCP' }] } }, ns);
  await client.create(builtin.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext', namespace: 'shop' }, spec: { type: 'ExternalName', externalName: 'example.org' } }, ns);
  await client.create(builtin.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web6', namespace: 'shop' }, spec: { clusterIP: 'None', ports: [{ port: 80, protocol: 'TCP' }] } }, ns);
  await client.create(
    builtin.endpointSlices,
    { apiVersion: 'discovery.svc.io/v1', kind: 'EndpointSlice', metadata: { name: 'web6-1', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'web6' } }, addressType: 'IPv6', ports: [{ port: 80, protocol: 'TCP' }], endpoints: [{ addresses: ['fd00:42::20'], conditions: { ready: true } }] },
    ns,
  );
  await client.create(
    builtin.endpointSlices,
    {
      apiVersion: 'discovery.svc.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'st-1', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'st' } },
      addressType: 'IPv4',
      ports: [{ name: 'peer', port: 7000, protocol: 'TCP' }],
      endpoints: [
        { addresses: ['10.42.0.10'], hostname: 'st-0', conditions: { ready: true } },
        { addresses: ['10.42.0.11'], hostname: 'st-1', conditions: { ready: true } },
        { addresses: ['10.42.0.12'], conditions: { ready: false } },
      ],
    },
    ns,
  );
  informers = new InformerFactory(cluster.client);
  server = await startClusterDns({ informers, address: '127.0.0.1', port: 0, upstreams: [`127.0.0.1:${upstream.address().port}`] });
  await server.synced;
});

afterAll(async () => {
  await server?.close();
  informers?.stop();
  upstream.close();
  await cluster?.stop();
});

describe('cluster DNS', () => {
  it('A for a ClusterIP Service, AAAA for IPv6 addresses, authoritative', async () => {
    const answer = await query('web.shop.svc.cluster.local', 'A');
    expect(rcode(answer)).toBe('NOERROR');
    expect(answer.flag_aa).toBe(true);
    expect(data(answer, 'A')).toEqual(['10.0.0.20']);
    expect(data(await query('web6.shop.svc.cluster.local', 'AAAA'), 'AAAA')).toEqual(['fd00:42::20']);
    // The name exists but has no AAAA: NODATA, with the SOA.
    const nodata = await query('web.shop.svc.cluster.local', 'AAAA');
    expect(rcode(nodata)).toBe('NOERROR');
    expect(nodata.answers).toEqual([]);
    expect(nodata.authorities?.[0]?.type).toBe('SOA');
  });

  it('a headless Service: its ready endpoints, each by hostname (a StatefulSet pod) and by dashed address', async () => {
    expect((data(await query('st.shop.svc.cluster.local', 'A'), 'A') as string[]).sort()).toEqual(['10.42.0.10', '10.42.0.11']);
    expect(data(await query('st-0.st.shop.svc.cluster.local', 'A'), 'A')).toEqual(['10.42.0.10']);
    expect(data(await query('10-42-0-11.st.shop.svc.cluster.local', 'A'), 'A')).toEqual(['10.42.0.11']);
  });

  it('SRV per named port: the Service for a ClusterIP one, each endpoint for a headless one', async () => {
    const clusterIp = await query('_http._tcp.web.shop.svc.cluster.local', 'SRV');
    expect(data(clusterIp, 'SRV')).toEqual([expect.objectContaining({ port: 80, target: 'web.shop.svc.cluster.local' })]);
    const headless = await query('_peer._tcp.st.shop.svc.cluster.local', 'SRV');
    expect((data(headless, 'SRV') as { target: string; port: number }[]).map((s) => `${s.target}:${s.port}`).sort()).toEqual([
      'st-0.st.shop.svc.cluster.local:7000',
      'st-1.st.shop.svc.cluster.local:7000',
    ]);
    expect((headless.additionals ?? []).filter((a) => a.type === 'A')).toHaveLength(2);
  });

  it('PTR of a cluster IP and of a headless endpoint; pod A records; CNAME for ExternalName', async () => {
    expect(data(await query('20.0.0.10.in-addr.arpa', 'PTR'), 'PTR')).toEqual(['web.shop.svc.cluster.local']);
    expect(data(await query('10.0.42.10.in-addr.arpa', 'PTR'), 'PTR')).toEqual(['st-0.st.shop.svc.cluster.local']);
    expect(data(await query('10-42-0-7.shop.pod.cluster.local', 'A'), 'A')).toEqual(['10.42.0.7']);
    expect(data(await query('ext.shop.svc.cluster.local', 'CNAME'), 'CNAME')).toEqual(['example.org']);
  });

  it('NXDOMAIN with the SOA for a name in the domain that does not exist', async () => {
    for (const name of ['nope.shop.svc.cluster.local', 'web.nope.svc.cluster.local', 'x.web.shop.svc.cluster.local', 'what.cluster.local', '_nope._tcp.web.shop.svc.cluster.local']) {
      const answer = await query(name, 'A');
      expect(rcode(answer), name).toBe('NXDOMAIN');
      expect(answer.authorities?.[0]).toMatchObject({ type: 'SOA', name: 'cluster.local' });
    }
  });

  it('forwards other names to the host resolvers and relays their answers', async () => {
    expect(data(await query('example.org', 'A'), 'A')).toEqual(['192.0.2.80']);
    expect(rcode(await query('unknown.example.org', 'A'))).toBe('NXDOMAIN');
  });

  it('answers over TCP too', async () => {
    const message = dns.encode({ type: 'query', id: 77, questions: [{ name: 'web.shop.svc.cluster.local', type: 'A' }] });
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16BE(message.length);
    const response = await new Promise<Buffer>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write(Buffer.concat([prefix, message])));
      let got = Buffer.alloc(0);
      socket.on('data', (chunk) => {
        got = Buffer.concat([got, chunk]);
        if (got.length >= 2 && got.length >= 2 + got.readUInt16BE(0)) {
          socket.end();
          resolve(got.subarray(2));
        }
      });
      socket.on('error', reject);
    });
    expect(data(dns.decode(response), 'A')).toEqual(['10.0.0.20']);
  });

  it('follows Services as they change', async () => {
    await cluster.client.create(builtin.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'late', namespace: 'shop' }, spec: { clusterIP: '10.0.0.30', ports: [{ port: 80, protocol: 'TCP' }] } }, { namespace: 'shop' });
    await eventually(async () => data(await query('late.shop.svc.cluster.local', 'A'), 'A')[0] === '10.0.0.30', 'the new Service');
    await cluster.client.delete(builtin.services, 'late', { namespace: 'shop' });
    await eventually(async () => rcode(await query('late.shop.svc.cluster.local', 'A')) === 'NXDOMAIN', 'the Service gone');
  });

  it('FORMERR for malformed packets, and goes on answering', async () => {
    const garbage = Buffer.from([0x12, 0x34, 0x01, 0x00, 0x00, 0x05, 0xff, 0xff]);
    const answer = await udpExchange(garbage);
    expect(answer.readUInt16BE(0)).toBe(0x1234);
    expect(answer.readUInt16BE(2) & 0x800f).toBe(0x8001);
    // A label running past the end, and a response sent as a query.
    const cut = dns.encode({ type: 'query', id: 9, questions: [{ name: 'web.shop.svc.cluster.local', type: 'A' }] }).subarray(0, 20);
    expect((await udpExchange(cut)).readUInt16BE(2) & 0x000f).toBe(1);
    const response = dns.encode({ type: 'response', id: 10, questions: [{ name: 'web.shop.svc.cluster.local', type: 'A' }] });
    expect((await udpExchange(response)).readUInt16BE(2) & 0x000f).toBe(1);
    expect(data(await query('web.shop.svc.cluster.local', 'A'), 'A')).toEqual(['10.0.0.20']);
  });
});
