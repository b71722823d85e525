import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer, isIP, type AddressInfo, type Server } from 'node:net';
import * as dns from 'dns-packet';
import { SERVICE_NAME_LABELS, type EndpointSlice, type Service } from '../../src/api/index.js';
import { builtin, type InformerFactory } from '../../src/client/index.js';
import { resolveClusterName, type ClusterView, type Resolution } from './cluster-records.js';

/**
 * The cluster DNS server: UDP and TCP on one address, the cluster's names answered from informers
 * on Services and EndpointSlices (cluster-records.ts), every other name forwarded to the host's
 * resolvers and their answer relayed. A packet that does not decode is answered FORMERR (when it
 * has an ID to answer), never thrown: one client's garbage costs nobody else an answer.
 */

export interface ClusterDnsOptions {
  readonly informers: InformerFactory;
  /** `--cluster-domain` (default cluster.local). */
  readonly domain?: string;
  /** Where to listen (UDP and TCP). Port 0 picks one (the same for both). */
  readonly address: string;
  readonly port: number;
  /** Resolvers for other names, `ip` or `ip:port`; default the nameservers of /etc/resolv.conf. */
  readonly upstreams?: readonly string[];
  /** How long to wait for an upstream (default 2 s; SERVFAIL after). */
  readonly upstreamTimeoutMs?: number;
}

export interface ClusterDns {
  readonly address: string;
  readonly port: number;
  /** Resolves once the informers have synced (answers before that may miss names). */
  readonly synced: Promise<void>;
  close(): Promise<void>;
}

const SERVICE_INDEX = 'service';
const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4 } as const;

function serviceOfSlice(slice: EndpointSlice): string[] {
  for (const label of SERVICE_NAME_LABELS) {
    const name = slice.metadata.labels?.[label];
    if (name) return [`${slice.metadata.namespace ?? ''}/${name}`];
  }
  return [];
}

/** The host's resolvers from resolv.conf, without `exclude` (our own address: no loops). */
export function hostResolvers(path = '/etc/resolv.conf', exclude: readonly string[] = []): string[] {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((line) => line.replace(/[#;].*$/, '').trim().split(/\s+/))
    .filter((fields) => fields[0] === 'nameserver' && fields[1] && isIP(fields[1]) && !exclude.includes(fields[1]))
    .map((fields) => fields[1]!);
}

/** A view of the informers' caches for the resolver, with a reverse index rebuilt when they change. */
function informerView(informers: InformerFactory, domain: string, onChange: () => void): { view: ClusterView; synced: Promise<void>; stop: () => void } {
  const services = informers.informer(builtin.services);
  const slices = informers.informer(builtin.endpointSlices, { indexers: { [SERVICE_INDEX]: serviceOfSlice } });
  let reverse: Map<string, string> | undefined;
  let namespaces: Set<string> | undefined;
  const stale = () => {
    reverse = undefined;
    namespaces = undefined;
    onChange();
  };
  const subscriptions = [services.events$.subscribe({ next: stale, error: () => undefined }), slices.events$.subscribe({ next: stale, error: () => undefined })];
  const buildReverse = (): Map<string, string> => {
    const map = new Map<string, string>();
    for (const service of services.store.list()) {
      const ns = service.metadata.namespace ?? '';
      const name = service.metadata.name ?? '';
      const fqdn = `${name}.${ns}.svc.${domain}`;
      if (service.spec?.clusterIP === 'None') {
        for (const slice of slices.store.byIndex(SERVICE_INDEX, `${ns}/${name}`)) {
          for (const endpoint of slice.endpoints ?? []) {
            for (const ip of endpoint.addresses) map.set(ip, `${endpoint.hostname ?? (ip.includes(':') ? ip.replaceAll(':', '-') : ip.replaceAll('.', '-'))}.${fqdn}`);
          }
        }
      } else {
        for (const ip of service.spec?.clusterIPs ?? (service.spec?.clusterIP ? [service.spec.clusterIP] : [])) if (ip !== 'None') map.set(ip, fqdn);
      }
    }
    return map;
  };
  const view: ClusterView = {
    service: (namespace, name): Service | undefined => services.store.get(`${namespace}/${name}`),
    slices: (namespace, name) => slices.store.byIndex(SERVICE_INDEX, `${namespace}/${name}`),
    hasNamespace: (namespace) => (namespaces ??= new Set(services.store.list().map((s) => s.metadata.namespace ?? ''))).has(namespace),
    reverse: (ip) => (reverse ??= buildReverse()).get(ip),
  };
  const synced = Promise.all([services.waitForSync(), slices.waitForSync()]).then(() => undefined);
  return { view, synced, stop: () => subscriptions.forEach((s) => s.unsubscribe()) };
}

/**
 * Encoded answers to cluster names by question (type, name as asked, recursion flag), emptied
 * whenever a Service or slice changes: a repeated question costs a copy and its ID written.
 * Bounded: emptied past 10,000 entries.
 */
export class AnswerCache {
  readonly #answers = new Map<string, Buffer>();
  get(key: string): Buffer | undefined {
    return this.#answers.get(key);
  }
  set(key: string, answer: Buffer): void {
    if (this.#answers.size >= 10_000) this.#answers.clear();
    this.#answers.set(key, answer);
  }
  clear(): void {
    this.#answers.clear();
  }
}

/** Answers one query packet; `forward` is called for names outside the cluster. */
export async function answerQuery(
  packet: Buffer,
  domain: string,
  view: ClusterView,
  forward: (packet: Buffer) => Promise<Buffer | undefined>,
  cache?: AnswerCache,
): Promise<Buffer | undefined> {
  let query: dns.DecodedPacket;
  try {
    query = dns.decode(packet);
  } catch {
    return packet.length >= 2 ? formerr(packet.readUInt16BE(0)) : undefined;
  }
  if (query.type !== 'query') return packet.length >= 2 ? formerr(query.id ?? packet.readUInt16BE(0)) : undefined;
  const question = query.questions?.[0];
  const recursion = (query.flags ?? 0) & dns.RECURSION_DESIRED;
  if (!question || (query.questions?.length ?? 0) !== 1) return reply(query, RCODE.FORMERR, recursion);
  const key = `${question.type}/${question.class ?? 'IN'}/${recursion}/${question.name}`;
  const cached = cache?.get(key);
  if (cached) {
    const answer = Buffer.from(cached);
    answer.writeUInt16BE(query.id ?? 0, 0);
    return answer;
  }
  let resolution: Resolution | undefined;
  try {
    resolution = resolveClusterName(question, domain, view);
  } catch {
    return reply(query, RCODE.SERVFAIL, recursion);
  }
  if (resolution === undefined) {
    const answer = await forward(packet);
    return answer ?? reply(query, RCODE.SERVFAIL, recursion);
  }
  const answer = dns.encode({
    type: 'response',
    id: query.id ?? 0,
    flags: dns.AUTHORITATIVE_ANSWER | recursion | dns.RECURSION_AVAILABLE | RCODE[resolution.rcode],
    questions: [question],
    answers: resolution.answers,
    authorities: resolution.authorities,
    additionals: resolution.additionals,
  });
  cache?.set(key, answer);
  return answer;
}

function reply(query: dns.DecodedPacket, rcode: number, recursion: number): Buffer {
  return dns.encode({ type: 'response', id: query.id ?? 0, flags: recursion | dns.RECURSION_AVAILABLE | rcode, questions: query.questions?.slice(0, 1) ?? [] });
}

/** A bare FORMERR header: the ID, QR set, the rcode, no sections. */
function formerr(id: number): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x8000 | RCODE.FORMERR, 2);
  return header;
}

/** Sends `packet` to the first upstream that answers in time (each tried once, in order). */
function forwarder(upstreams: readonly string[], timeoutMs: number): (packet: Buffer) => Promise<Buffer | undefined> {
  const targets = upstreams.map((u) => {
    const match = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(u);
    const host = isIP(u) ? u : (match?.[1] ?? u);
    const port = isIP(u) ? 53 : Number(match?.[2] ?? 53);
    return { host, port };
  });
  return async (packet) => {
    for (const { host, port } of targets) {
      const answer = await new Promise<Buffer | undefined>((resolve) => {
        const socket = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
        const timer = setTimeout(() => done(undefined), timeoutMs);
        const done = (value: Buffer | undefined) => {
          clearTimeout(timer);
          socket.close();
          resolve(value);
        };
        socket.on('message', (message) => done(message));
        socket.on('error', () => done(undefined));
        socket.send(packet, port, host);
      });
      if (answer) return answer;
    }
    return undefined;
  };
}

export async function startClusterDns(options: ClusterDnsOptions): Promise<ClusterDns> {
  const domain = (options.domain ?? 'cluster.local').toLowerCase().replace(/\.$/, '');
  const cache = new AnswerCache();
  const { view, synced, stop } = informerView(options.informers, domain, () => cache.clear());
  const forward = forwarder(options.upstreams ?? hostResolvers('/etc/resolv.conf', [options.address]), options.upstreamTimeoutMs ?? 2000);
  const answer = (packet: Buffer) => answerQuery(packet, domain, view, forward, cache).catch(() => undefined);

  const udp: Socket = createSocket(isIP(options.address) === 6 ? 'udp6' : 'udp4');
  udp.on('message', (message: Buffer, remote: RemoteInfo) => {
    void answer(message).then((response) => {
      if (!response) return;
      // A UDP answer over 512 bytes without EDNS is cut to the header with TC set: the client retries over TCP.
      const out = response.length > 512 ? truncated(response) : response;
      udp.send(out, remote.port, remote.address);
    });
  });
  udp.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(options.port, options.address, () => {
      udp.off('error', reject);
      resolve();
    });
  });
  const port = udp.address().port;

  const tcp: Server = createServer((socket) => {
    let buffered = Buffer.alloc(0);
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      // Bounded: one message is at most 65535 bytes plus its length.
      if (buffered.length > 65_537 * 4) return socket.destroy();
      while (buffered.length >= 2) {
        const length = buffered.readUInt16BE(0);
        if (buffered.length < 2 + length) break;
        const message = buffered.subarray(2, 2 + length);
        buffered = buffered.subarray(2 + length);
        void answer(Buffer.from(message)).then((response) => {
          if (!response || socket.destroyed) return;
          const prefix = Buffer.alloc(2);
          prefix.writeUInt16BE(response.length);
          socket.write(Buffer.concat([prefix, response]));
        });
      }
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(port, options.address, () => {
        tcp.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    udp.close();
    stop();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    address: (tcp.address() as AddressInfo).address,
    port,
    synced,
    close: () =>
      (closing ??= (async () => {
        stop();
        udp.close();
        await new Promise<void>((resolve) => tcp.close(() => resolve()));
      })()),
  };
}

/** The header of `response` with TC set and no records: the client asks again over TCP. */
function truncated(response: Buffer): Buffer {
  const header = Buffer.from(response.subarray(0, 12));
  header.writeUInt16BE(header.readUInt16BE(2) | 0x0200, 2);
  header.writeUInt16BE(0, 4);
  header.writeUInt16BE(0, 6);
  header.writeUInt16BE(0, 8);
  header.writeUInt16BE(0, 10);
  return header;
}
