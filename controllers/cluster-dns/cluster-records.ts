import { isIP } from 'node:net';
import type { Answer, Question, SrvAnswer, StringAnswer } from 'dns-packet';
import type { EndpointSlice, Service } from '../../src/api/index.js';

/**
 * The cluster's names, as the Kubernetes DNS specification (and CoreDNS's kubernetes plugin)
 * gives them, answered from what the informers hold:
 *
 * - `<svc>.<ns>.svc.<domain>`: A/AAAA of the cluster IP; for a headless Service, of each ready
 *   endpoint (all of them with `publishNotReadyAddresses`); CNAME for an ExternalName Service;
 * - `<hostname>.<svc>.<ns>.svc.<domain>`: an endpoint with a hostname (a StatefulSet's pod, by its
 *   `hostname.subdomain`), or any endpoint of a headless Service by its dashed address;
 * - `_<port>._<proto>.<svc>.<ns>.svc.<domain>`: SRV per named port (for a headless Service one
 *   record per endpoint, with its address in the additional section);
 * - `a-b-c-d.<ns>.pod.<domain>`: A of that pod address (CoreDNS's `pods insecure`);
 * - `d.c.b.a.in-addr.arpa` (and ip6.arpa): PTR of a cluster IP or a headless endpoint.
 *
 * A name in the domain that matches none of these is NXDOMAIN; a name that exists without a record
 * of the asked type is NODATA (NOERROR, no answer); both carry the zone's SOA. Anything else is not
 * the cluster's: `undefined`, for the server to forward.
 */

export interface ClusterView {
  service(namespace: string, name: string): Service | undefined;
  slices(namespace: string, name: string): readonly EndpointSlice[];
  /** Whether a namespace has any Service (so `<ns>.svc.<domain>` exists). */
  hasNamespace(namespace: string): boolean;
  /** The Service or endpoint owning a reverse-looked-up address, as its name. */
  reverse(ip: string): string | undefined;
}

export interface Resolution {
  readonly rcode: 'NOERROR' | 'NXDOMAIN';
  readonly answers: Answer[];
  readonly additionals: Answer[];
  /** The zone's SOA, for the authority section of NXDOMAIN and NODATA answers. */
  readonly authorities: Answer[];
}

export const DNS_TTL = 5;

export function soa(domain: string): Answer {
  return {
    type: 'SOA',
    name: domain,
    ttl: DNS_TTL,
    data: { mname: `ns.dns.${domain}`, rname: `hostmaster.${domain}`, serial: 1, refresh: 7200, retry: 1800, expire: 86400, minimum: DNS_TTL },
  };
}

interface Target {
  readonly ip: string;
  readonly hostname: string | undefined;
}

/** The addresses a headless Service's name resolves to: ready endpoints, or all with publishNotReadyAddresses. */
function endpointTargets(service: Service, slices: readonly EndpointSlice[]): Target[] {
  const all = service.spec?.publishNotReadyAddresses === true;
  const seen = new Map<string, Target>();
  for (const slice of slices) {
    if (slice.addressType === 'FQDN') continue;
    for (const endpoint of slice.endpoints ?? []) {
      if (!all && endpoint.conditions?.ready === false) continue;
      for (const ip of endpoint.addresses) if (!seen.has(ip)) seen.set(ip, { ip, hostname: endpoint.hostname });
    }
  }
  return [...seen.values()];
}

const dashed = (ip: string): string => (ip.includes(':') ? ip.replaceAll(':', '-') : ip.replaceAll('.', '-'));
const addressRecord = (name: string, ip: string): StringAnswer => ({ type: isIP(ip) === 6 ? 'AAAA' : 'A', name, ttl: DNS_TTL, data: ip });
const isHeadless = (service: Service): boolean => service.spec?.clusterIP === 'None';
const clusterIps = (service: Service): string[] => {
  const ips = service.spec?.clusterIPs?.length ? service.spec.clusterIPs : service.spec?.clusterIP ? [service.spec.clusterIP] : [];
  return ips.filter((ip) => ip !== 'None' && ip !== '');
};

export function resolveClusterName(question: Question, domain: string, view: ClusterView): Resolution | undefined {
  const name = question.name.toLowerCase().replace(/\.$/, '');
  const reverse = reverseAddress(name);
  if (reverse !== undefined) {
    const target = view.reverse(reverse);
    if (target === undefined) return undefined;
    return question.type === 'PTR' ? found([{ type: 'PTR', name: question.name, ttl: DNS_TTL, data: target }]) : nodata(domain);
  }
  if (name !== domain && !name.endsWith(`.${domain}`)) return undefined;
  const labels = name === domain ? [] : name.slice(0, -domain.length - 1).split('.');
  const miss = (): Resolution => ({ rcode: 'NXDOMAIN', answers: [], additionals: [], authorities: [soa(domain)] });
  // The zone apex and its two subzones exist (they have no records of their own but the SOA).
  if (labels.length === 0) return question.type === 'SOA' ? found([soa(domain)]) : nodata(domain);
  const kind = labels.at(-1);
  if (labels.length === 1) return kind === 'svc' || kind === 'pod' ? nodata(domain) : miss();
  if (kind === 'pod') {
    // a-b-c-d.<ns>.pod.<domain>
    if (labels.length !== 3) return miss();
    const ip = labels[0]!.includes('-') && !labels[0]!.includes('.') ? podIp(labels[0]!) : undefined;
    if (!ip) return miss();
    const type = isIP(ip) === 6 ? 'AAAA' : 'A';
    return question.type === type ? found([addressRecord(question.name, ip)]) : nodata(domain);
  }
  if (kind !== 'svc') return miss();
  const namespace = labels.at(-2)!;
  if (labels.length === 2) return view.hasNamespace(namespace) ? nodata(domain) : miss();
  const serviceName = labels.at(-3)!;
  const service = view.service(namespace, serviceName);
  if (!service) return miss();
  const serviceFqdn = `${serviceName}.${namespace}.svc.${domain}`;
  const headless = isHeadless(service);
  const slices = headless || labels.length > 3 ? view.slices(namespace, serviceName) : [];
  const targets = headless ? endpointTargets(service, slices) : [];

  if (labels.length === 3) {
    if (service.spec?.type === 'ExternalName' && service.spec.externalName) {
      return found([{ type: 'CNAME', name: question.name, ttl: DNS_TTL, data: service.spec.externalName }]);
    }
    const ips = headless ? targets.map((t) => t.ip) : clusterIps(service);
    const records = ips.map((ip) => addressRecord(question.name, ip)).filter((r) => r.type === question.type);
    return records.length > 0 ? found(records) : nodata(domain);
  }
  if (labels.length === 4) {
    // <hostname>.<svc>: an endpoint by its hostname, or a headless endpoint by its dashed address.
    const label = labels[0]!;
    const target = targets.find((t) => t.hostname === label) ?? targets.find((t) => dashed(t.ip) === label);
    if (!target) return miss();
    return question.type === (isIP(target.ip) === 6 ? 'AAAA' : 'A') ? found([addressRecord(question.name, target.ip)]) : nodata(domain);
  }
  if (labels.length === 5 && labels[0]!.startsWith('_') && labels[1]!.startsWith('_')) {
    const portName = labels[0]!.slice(1);
    const protocol = labels[1]!.slice(1).toUpperCase();
    const port = (service.spec?.ports ?? []).find((p) => p.name === portName && (p.protocol ?? 'TCP') === protocol);
    if (!port) return miss();
    if (question.type !== 'SRV') return nodata(domain);
    if (!headless) return found([srv(question.name, port.port, serviceFqdn)], clusterIps(service).map((ip) => addressRecord(serviceFqdn, ip)));
    const slicePort = (t: Target) => endpointPort(slices, t.ip, portName, protocol);
    const answers: Answer[] = [];
    const additionals: Answer[] = [];
    for (const t of targets) {
      const p = slicePort(t);
      if (p === undefined) continue;
      const host = `${t.hostname ?? dashed(t.ip)}.${serviceFqdn}`;
      answers.push(srv(question.name, p, host));
      additionals.push(addressRecord(host, t.ip));
    }
    return answers.length > 0 ? found(answers, additionals) : nodata(domain);
  }
  return miss();
}

function srv(name: string, port: number, target: string): SrvAnswer {
  return { type: 'SRV', name, ttl: DNS_TTL, data: { priority: 0, weight: 100, port, target } };
}

function endpointPort(slices: readonly EndpointSlice[], ip: string, portName: string, protocol: string): number | undefined {
  for (const slice of slices) {
    if (!(slice.endpoints ?? []).some((e) => e.addresses.includes(ip))) continue;
    const port = (slice.ports ?? []).find((p) => (p.name ?? '') === portName && (p.protocol ?? 'TCP') === protocol);
    if (port?.port !== undefined) return port.port;
  }
  return undefined;
}

const found = (answers: Answer[], additionals: Answer[] = []): Resolution => ({ rcode: 'NOERROR', answers, additionals, authorities: [] });
const nodata = (domain: string): Resolution => ({ rcode: 'NOERROR', answers: [], additionals: [], authorities: [soa(domain)] });

/** `a-b-c-d` → `a.b.c.d`; an IPv6 pod name uses dashes for colons. */
function podIp(label: string): string | undefined {
  const v4 = label.replaceAll('-', '.');
  if (isIP(v4) === 4) return v4;
  const v6 = label.replaceAll('-', ':');
  return isIP(v6) === 6 ? v6 : undefined;
}

/** The address a reverse name stands for (`5.0.43.10.in-addr.arpa` → `10.43.0.5`), else undefined. */
export function reverseAddress(name: string): string | undefined {
  if (name.endsWith('.in-addr.arpa')) {
    const parts = name.slice(0, -'.in-addr.arpa'.length).split('.');
    if (parts.length !== 4) return undefined;
    const ip = parts.reverse().join('.');
    return isIP(ip) === 4 ? ip : undefined;
  }
  if (name.endsWith('.ip6.arpa')) {
    const nibbles = name.slice(0, -'.ip6.arpa'.length).split('.');
    if (nibbles.length !== 32 || nibbles.some((n) => !/^[0-9a-f]$/.test(n))) return undefined;
    const hex = nibbles.reverse().join('');
    const groups = hex.match(/.{4}/g)!.map((g) => g.replace(/^0+(?=.)/, ''));
    return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
  }
  return undefined;
}
