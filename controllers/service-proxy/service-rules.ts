import { createHash } from 'node:crypto';
import type { EndpointSlice, Service, ServicePort } from '../../src/api/index.js';

/**
 * The iptables rules of one Service, as kube-proxy's iptables mode lays them out, computed from the
 * Service and its EndpointSlices alone (a pure function: the proxy diffs its results). Per port:
 *
 * - a service chain (`<p>SVC-<hash>`): traffic from outside the pod network marked for masquerade,
 *   then (with `sessionAffinity: ClientIP`) a `recent` check per endpoint, then one jump per
 *   endpoint with probability 1/(n-i), so each gets an even share;
 * - an endpoint chain (`<p>SEP-<hash>`) per endpoint: hairpin traffic (a pod reaching itself)
 *   marked for masquerade, then the DNAT (recording the client for affinity);
 * - for a NodePort, an external chain (`<p>EXT-<hash>`): marked for masquerade and sent to the
 *   service chain, or with `externalTrafficPolicy: Local` sent to this node's endpoints only, the
 *   client's address kept (pods and the node itself still use the cluster-wide chain);
 * - lines in the shared chains: `<p>SERVICES` (cluster IP and port → service chain) and
 *   `<p>NODEPORTS` (node port → external chain) in nat, and in filter `<p>REJECT` a REJECT for a
 *   port with no endpoint to send to, so clients fail at once instead of timing out.
 *
 * Endpoints: the ready ones; when none is ready, the serving terminating ones (upstream's
 * terminating-endpoints fallback). `internalTrafficPolicy: Local` uses only this node's.
 *
 * One address family at a time (`family`): IPv4 for iptables, IPv6 for ip6tables, each with the
 * Service's cluster IP, external IPs, load-balancer ingress IPs and the slices of that family.
 * External IPs and load-balancer ingress IPs are external destinations like the node port: their
 * lines in `<p>SERVICES` jump to the external chain (externalTrafficPolicy applies), or, with no
 * endpoint, REJECT in `<p>REJECT`.
 */

export interface ProxyNode {
  /** Prefix of every chain this proxy owns (one per `svc up` data dir: two clusters on a host never touch each other's). */
  readonly prefix: string;
  readonly nodeName: string;
  /** The pod network: traffic from elsewhere to a cluster IP is masqueraded. */
  readonly podCidr: string;
  /** The pod network's IPv6 range (dual stack); without it, IPv6 traffic to a cluster IP is masqueraded whatever its source. */
  readonly podCidrV6?: string | undefined;
}

export type IpFamily = 4 | 6;
export const familyOf = (ip: string): IpFamily => (ip.includes(':') ? 6 : 4);

/** What differs between iptables and ip6tables rules. */
const FAMILY = {
  4: { host: '/32', mask: '255.255.255.255', reject: 'icmp-port-unreachable', addressType: 'IPv4', target: (ip: string, port: number) => `${ip}:${port}` },
  6: { host: '/128', mask: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', reject: 'icmp6-port-unreachable', addressType: 'IPv6', target: (ip: string, port: number) => `[${ip}]:${port}` },
} as const;

/** A UDP port's destinations and endpoints: what the proxy flushes conntrack entries for when endpoints go. */
export interface UdpPort {
  /** The Service port (`namespace/name:port`). */
  readonly key: string;
  /** The addresses the port is reached at (cluster IP, external IPs, load-balancer IPs). */
  readonly destinations: readonly string[];
  readonly nodePort?: number | undefined;
  /** The addresses traffic is sent to (the cluster-wide and the local endpoints). */
  readonly endpoints: readonly string[];
}

export type Table = 'nat' | 'filter';

/** A chain the Service owns whole: its lines, in order. */
export interface OwnedChain {
  readonly table: Table;
  readonly lines: readonly string[];
}

/** A line in a chain Services share; order there does not matter. */
export interface SharedLine {
  readonly table: Table;
  readonly chain: string;
  readonly line: string;
}

export interface ServiceRules {
  readonly chains: ReadonlyMap<string, OwnedChain>;
  readonly shared: readonly SharedLine[];
  /** The Service's UDP ports (none for a Service without one). */
  readonly udp?: readonly UdpPort[];
}

export const EMPTY_RULES: ServiceRules = { chains: new Map(), shared: [] };

/** Names of the chains every Service shares, and the masquerade mark (kube-proxy's bit). */
export const sharedChains = (prefix: string) => ({
  services: `${prefix}SERVICES`,
  nodePorts: `${prefix}NODEPORTS`,
  markMasq: `${prefix}MARK-MASQ`,
  postrouting: `${prefix}POSTROUTING`,
  reject: `${prefix}REJECT`,
});
export const MASQ_MARK = '0x4000/0x4000';

interface Endpoint {
  readonly ip: string;
  readonly port: number;
  readonly nodeName: string | undefined;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
}

// Chain names are hashes of what they stand for; a sync of a large Service asks for the same
// thousand again, so they are remembered (bounded: dropped wholesale past 100,000).
const hashes = new Map<string, string>();
const hash = (text: string): string => {
  let name = hashes.get(text);
  if (name === undefined) {
    if (hashes.size >= 100_000) hashes.clear();
    name = createHash('sha256').update(text).digest('base64url').replace(/[-_]/g, 'X').slice(0, 12).toUpperCase();
    hashes.set(text, name);
  }
  return name;
};

/** The Service's cluster IP of `family`, if the proxy routes it: not headless, not ExternalName. */
export function clusterIpOf(service: Service, family: IpFamily = 4): string | undefined {
  const spec = service.spec;
  if (!spec || spec.type === 'ExternalName' || !spec.clusterIP || spec.clusterIP === 'None') return undefined;
  const ips = spec.clusterIPs && spec.clusterIPs.length > 0 ? spec.clusterIPs : [spec.clusterIP];
  return ips.find((ip) => ip !== '' && ip !== 'None' && familyOf(ip) === family);
}

/** Whether the proxy routes this Service in `family` at all. */
export const isProxied = (service: Service, family: IpFamily = 4): boolean => clusterIpOf(service, family) !== undefined;

/** External IPs and load-balancer ingress IPs of `family`: destinations treated like the node port. */
function externalDestinations(service: Service, family: IpFamily): string[] {
  const external = (service.spec?.externalIPs ?? []).filter((ip) => familyOf(ip) === family);
  const ingress = service.spec?.type === 'LoadBalancer' ? (service.status?.loadBalancer?.ingress ?? []).map((i) => i.ip).filter((ip): ip is string => typeof ip === 'string' && ip !== '' && familyOf(ip) === family) : [];
  return [...new Set([...external, ...ingress])];
}

/**
 * The order endpoints were last given in, per service port: kept so that a change moves as few
 * rules as it can (see `stableOrder`). The proxy holds one across syncs; read and written here.
 */
export type EndpointOrders = Map<string, readonly string[]>;

export function serviceRules(service: Service, slices: readonly EndpointSlice[], node: ProxyNode, orders: EndpointOrders = new Map(), family: IpFamily = 4): ServiceRules {
  const clusterIp = clusterIpOf(service, family);
  if (clusterIp === undefined) return EMPTY_RULES;
  const f = FAMILY[family];
  const podCidr = family === 4 ? node.podCidr : node.podCidrV6;
  const spec = service.spec!;
  const namespace = service.metadata.namespace ?? '';
  const name = service.metadata.name ?? '';
  const externals = externalDestinations(service, family);
  const shared = sharedChains(node.prefix);
  const chains = new Map<string, OwnedChain>();
  const lines: SharedLine[] = [];
  const udp: UdpPort[] = [];
  const affinitySeconds = spec.sessionAffinity === 'ClientIP' ? affinityTimeout(spec.sessionAffinityConfig) : 0;
  for (const port of spec.ports ?? []) {
    const protocol = (port.protocol ?? 'TCP').toLowerCase();
    if (protocol === 'sctp') continue;
    const portName = `${namespace}/${name}:${port.name ?? ''}`;
    const id = hash(`${portName}/${protocol}`);
    const svcChain = `${node.prefix}SVC-${id}`;
    const extChain = `${node.prefix}EXT-${id}`;
    const all = endpointsOf(slices, port, family);
    const clusterEndpoints = usable(spec.internalTrafficPolicy === 'Local' ? all.filter((e) => e.nodeName === node.nodeName) : all);
    const byKey = new Map(clusterEndpoints.map((e) => [endpointKey(e), e]));
    const order = stableOrder(orders.get(svcChain), [...byKey.keys()]);
    orders.set(svcChain, order);
    clusterEndpoints.splice(0, clusterEndpoints.length, ...order.map((key) => byKey.get(key)!));
    const localEndpoints = usable(all.filter((e) => e.nodeName === node.nodeName));
    const comment = `-m comment --comment "${portName}"`;
    const toPort = `-p ${protocol} -m ${protocol} --dport ${port.port}`;
    const match = `-d ${clusterIp}${f.host} ${toPort}`;
    const nodePort = (spec.type === 'NodePort' || spec.type === 'LoadBalancer') && port.nodePort ? port.nodePort : undefined;
    const external = nodePort !== undefined || externals.length > 0;
    const local = spec.externalTrafficPolicy === 'Local';

    // Endpoint chains, shared by the cluster-wide and the local distributions.
    const sepNames = new Map<Endpoint, string>();
    const sepChain = (e: Endpoint): string => {
      let chain = sepNames.get(e);
      if (chain === undefined) sepNames.set(e, (chain = `${node.prefix}SEP-${hash(`${portName}/${protocol}/${e.ip}:${e.port}`)}`));
      return chain;
    };
    const routed = new Set([...clusterEndpoints, ...(external && local ? localEndpoints : [])]);
    for (const e of routed) {
      const chain = sepChain(e);
      const recent = affinitySeconds > 0 ? ` -m recent --set --name ${chain} --mask ${f.mask} --rsource` : '';
      chains.set(chain, {
        table: 'nat',
        lines: [`-s ${e.ip}${f.host} ${comment} -j ${shared.markMasq}`, `-p ${protocol} ${comment}${recent} -m ${protocol} -j DNAT --to-destination ${f.target(e.ip, e.port)}`],
      });
    }
    if (protocol === 'udp') udp.push({ key: portName, destinations: [clusterIp, ...externals], nodePort, endpoints: [...new Set([...routed].map((e) => e.ip))].sort() });
    const distribute = (endpoints: readonly Endpoint[]): string[] => {
      const out: string[] = [];
      if (affinitySeconds > 0) {
        for (const e of endpoints) out.push(`${comment} -m recent --rcheck --seconds ${affinitySeconds} --reap --name ${sepChain(e)} --mask ${f.mask} --rsource -j ${sepChain(e)}`);
      }
      endpoints.forEach((e, i) => {
        const left = endpoints.length - i;
        out.push(left === 1 ? `${comment} -j ${sepChain(e)}` : `${comment} -m statistic --mode random --probability ${probability(1 / left)} -j ${sepChain(e)}`);
      });
      return out;
    };

    const reject = `-j REJECT --reject-with ${f.reject}`;
    if (clusterEndpoints.length > 0) {
      // Without a pod network of this family every source is outside it.
      const outside = podCidr ? `! -s ${podCidr} ` : '';
      chains.set(svcChain, { table: 'nat', lines: [`${outside}${match} ${comment} -j ${shared.markMasq}`, ...distribute(clusterEndpoints)] });
      lines.push({ table: 'nat', chain: shared.services, line: `${match} ${comment} -j ${svcChain}` });
    } else {
      lines.push({ table: 'filter', chain: shared.reject, line: `${match} ${comment} ${reject}` });
    }

    if (external) {
      const nodeMatch = nodePort !== undefined ? `-p ${protocol} -m ${protocol} --dport ${nodePort}` : undefined;
      const reachable = local ? localEndpoints.length > 0 || clusterEndpoints.length > 0 : clusterEndpoints.length > 0;
      if (reachable) {
        const ext: string[] = [];
        if (local) {
          // Pods and the node itself are inside the cluster: they keep the cluster-wide distribution.
          if (clusterEndpoints.length > 0) {
            if (podCidr) ext.push(`-s ${podCidr} ${comment} -j ${svcChain}`);
            ext.push(`-m addrtype --src-type LOCAL ${comment} -j ${shared.markMasq}`);
            ext.push(`-m addrtype --src-type LOCAL ${comment} -j ${svcChain}`);
          }
          ext.push(...(localEndpoints.length > 0 ? distribute(localEndpoints) : [`${comment} -j DROP`]));
        } else {
          ext.push(`${comment} -j ${shared.markMasq}`, `${comment} -j ${svcChain}`);
        }
        chains.set(extChain, { table: 'nat', lines: ext });
        if (nodeMatch) lines.push({ table: 'nat', chain: shared.nodePorts, line: `${nodeMatch} ${comment} -j ${extChain}` });
        for (const ip of externals) lines.push({ table: 'nat', chain: shared.services, line: `-d ${ip}${f.host} ${toPort} ${comment} -j ${extChain}` });
      } else {
        if (nodeMatch) lines.push({ table: 'filter', chain: shared.reject, line: `-m addrtype --dst-type LOCAL ${nodeMatch} ${comment} ${reject}` });
        for (const ip of externals) lines.push({ table: 'filter', chain: shared.reject, line: `-d ${ip}${f.host} ${toPort} ${comment} ${reject}` });
      }
    }
  }
  return udp.length > 0 ? { chains, shared: lines, udp } : { chains, shared: lines };
}

const endpointKey = (e: Endpoint): string => `${e.ip}:${e.port}`;

/**
 * The endpoints' order in a service chain after a change, chosen so the fewest rules change. Rule
 * i jumps with probability 1/(n-i): a rule's line depends only on how many rules follow it. So a
 * newcomer takes a leaver's slot (one line changes); a leaver with no newcomer is replaced by the
 * first endpoint, whose slot is dropped (two lines change, every later rule stays); a newcomer
 * with no slot goes first (one line more, none after it changes). `current` is sorted.
 */
export function stableOrder(previous: readonly string[] | undefined, current: readonly string[]): string[] {
  if (!previous) return [...current];
  const now = new Set(current);
  const slots: (string | undefined)[] = previous.map((key) => (now.has(key) ? key : undefined));
  const kept = new Set(slots.filter((key): key is string => key !== undefined));
  const added = current.filter((key) => !kept.has(key));
  for (let i = 0; i < slots.length && added.length > 0; i++) if (slots[i] === undefined) slots[i] = added.shift();
  while (slots.includes(undefined)) {
    if (slots[0] === undefined) {
      slots.shift();
      continue;
    }
    slots[slots.lastIndexOf(undefined)] = slots[0];
    slots.shift();
  }
  return [...added.reverse(), ...(slots as string[])];
}

/** Probabilities as iptables-save prints them (11 decimals), so a rule reads back as written. */
const probability = (p: number): string => p.toFixed(11);

function affinityTimeout(config: unknown): number {
  const seconds = (config as { clientIP?: { timeoutSeconds?: unknown } } | undefined)?.clientIP?.timeoutSeconds;
  return typeof seconds === 'number' && seconds > 0 ? Math.floor(seconds) : 10_800;
}

/** Ready endpoints; when there is none, the serving terminating ones. */
function usable(endpoints: readonly Endpoint[]): Endpoint[] {
  const ready = endpoints.filter((e) => e.ready);
  return ready.length > 0 ? ready : endpoints.filter((e) => e.serving && e.terminating);
}

/** The endpoints of one Service port, from every slice, deduplicated and sorted (a stable order: unchanged endpoints keep their rules). */
function endpointsOf(slices: readonly EndpointSlice[], port: ServicePort, family: IpFamily): Endpoint[] {
  const byKey = new Map<string, Endpoint>();
  const protocol = port.protocol ?? 'TCP';
  for (const slice of slices) {
    if (slice.addressType !== FAMILY[family].addressType) continue;
    const slicePort = (slice.ports ?? []).find((p) => (p.name ?? '') === (port.name ?? '') && (p.protocol ?? 'TCP') === protocol);
    if (!slicePort?.port) continue;
    for (const endpoint of slice.endpoints ?? []) {
      const ip = endpoint.addresses[0];
      if (!ip) continue;
      const conditions = endpoint.conditions ?? {};
      // Upstream: a missing ready condition means ready; serving defaults to ready.
      const ready = conditions.ready !== false;
      const e: Endpoint = { ip, port: slicePort.port, nodeName: endpoint.nodeName, ready, serving: conditions.serving ?? ready, terminating: conditions.terminating === true };
      byKey.set(`${ip}:${slicePort.port}`, e);
    }
  }
  if (family === 6) {
    return [...byKey.values()].map((e) => ({ e, k: `${ipv6Key(e.ip)}:${String(e.port).padStart(5, '0')}` })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0)).map(({ e }) => e);
  }
  // Sorted by address, each read once into a number (comparing split strings costs more than the rest).
  return [...byKey.values()]
    .map((e) => ({ e, n: ipNumber(e.ip) * 65536 + e.port }))
    .sort((a, b) => a.n - b.n)
    .map(({ e }) => e);
}

function ipNumber(ip: string): number {
  let n = 0;
  for (const part of ip.split('.')) n = n * 256 + Number(part);
  return n;
}

/** An IPv6 address as 32 hex digits, so that addresses sort as numbers. */
function ipv6Key(ip: string): string {
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const h = groups(head);
  const t = groups(tail);
  const all = ip.includes('::') ? [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t] : h;
  return all.map((g) => g.padStart(4, '0')).join('');
}
