// The proxy's rules as pure functions: what each Service becomes (kube-proxy's iptables layout)
// and how small the delta between two versions is.
import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../src/api/index.js';
import { restoreInput, ruleDelta, serviceRules, stableOrder, staleUdpFilters, type ProxyNode } from '../../controllers/index.js';

const node: ProxyNode = { prefix: 'STEST-', nodeName: 'n1', podCidr: '10.42.0.0/24' };

const service = (spec: Partial<NonNullable<Service['spec']>> = {}): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'ns' },
  spec: { type: 'ClusterIP', clusterIP: '10.43.0.20', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }], ...spec },
});

interface Ep {
  ip: string;
  node?: string;
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}
const slice = (eps: Ep[], name = 'web-abc'): EndpointSlice => ({
  apiVersion: 'discovery.svc.io/v1',
  kind: 'EndpointSlice',
  metadata: { name, namespace: 'ns', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: eps.map((e) => ({
    addresses: [e.ip],
    ...(e.node ? { nodeName: e.node } : {}),
    conditions: { ready: e.ready ?? true, serving: e.serving ?? e.ready ?? true, terminating: e.terminating ?? false },
  })),
});

const dnatTargets = (rules: ReturnType<typeof serviceRules>) =>
  [...rules.chains.values()].flatMap((c) => c.lines).flatMap((l) => /--to-destination (\S+)/.exec(l)?.[1] ?? []).sort();
const chainNamed = (rules: ReturnType<typeof serviceRules>, kind: string) => [...rules.chains].filter(([name]) => name.startsWith(`STEST-${kind}-`));
/** The one chain of a kind: its name and lines. */
const onlyChain = (rules: ReturnType<typeof serviceRules>, kind: string): [string, { lines: readonly string[] }] => {
  const chains = chainNamed(rules, kind);
  expect(chains).toHaveLength(1);
  return chains[0]!;
};

describe('service rules', () => {
  it('a ClusterIP Service: a service chain spreading evenly over one chain per endpoint, jumped to from the shared chain', () => {
    const rules = serviceRules(service(), [slice([{ ip: '10.42.0.5' }, { ip: '10.42.0.6' }, { ip: '10.42.0.7' }])], node);
    expect(dnatTargets(rules)).toEqual(['10.42.0.5:8080', '10.42.0.6:8080', '10.42.0.7:8080']);
    const [svcName, svc] = onlyChain(rules, 'SVC');
    expect(svc.lines[0]).toContain('! -s 10.42.0.0/24 -d 10.43.0.20/32 -p tcp -m tcp --dport 80');
    expect(svc.lines.slice(1).map((l) => /--probability (\S+)/.exec(l)?.[1] ?? 'last')).toEqual(['0.33333333333', '0.50000000000', 'last']);
    expect(rules.shared).toEqual([{ table: 'nat', chain: 'STEST-SERVICES', line: expect.stringContaining(`-d 10.43.0.20/32 -p tcp -m tcp --dport 80`) }]);
    expect(rules.shared[0]!.line).toMatch(new RegExp(`-j ${svcName}$`));
    // Hairpin: a pod reaching itself through the Service is masqueraded.
    for (const [, sep] of chainNamed(rules, 'SEP')) expect(sep.lines[0]).toMatch(/^-s 10\.42\.0\.\d\/32 .* -j STEST-MARK-MASQ$/);
  });

  it('no endpoint: a REJECT in the filter chain, no nat rule; headless and ExternalName Services: nothing', () => {
    const rules = serviceRules(service(), [], node);
    expect(rules.chains.size).toBe(0);
    expect(rules.shared).toEqual([{ table: 'filter', chain: 'STEST-REJECT', line: expect.stringContaining('-j REJECT') }]);
    expect(serviceRules(service({ clusterIP: 'None' }), [slice([{ ip: '10.42.0.5' }])], node).shared).toEqual([]);
    expect(serviceRules(service({ type: 'ExternalName', externalName: 'example.com' }), [], node).shared).toEqual([]);
  });

  it('terminating endpoints are used only when none is ready', () => {
    const mixed = serviceRules(service(), [slice([{ ip: '10.42.0.5' }, { ip: '10.42.0.6', ready: false, serving: true, terminating: true }])], node);
    expect(dnatTargets(mixed)).toEqual(['10.42.0.5:8080']);
    const onlyTerminating = serviceRules(service(), [slice([{ ip: '10.42.0.6', ready: false, serving: true, terminating: true }, { ip: '10.42.0.7', ready: false, serving: false, terminating: true }])], node);
    expect(dnatTargets(onlyTerminating)).toEqual(['10.42.0.6:8080']);
  });

  it('internalTrafficPolicy Local: this node\'s endpoints only', () => {
    const rules = serviceRules(service({ internalTrafficPolicy: 'Local' }), [slice([{ ip: '10.42.0.5', node: 'n1' }, { ip: '10.42.1.5', node: 'n2' }])], node);
    expect(dnatTargets(rules)).toEqual(['10.42.0.5:8080']);
  });

  it('sessionAffinity ClientIP: a recent check per endpoint before the spread, the client recorded at DNAT', () => {
    const rules = serviceRules(service({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } }), [slice([{ ip: '10.42.0.5' }, { ip: '10.42.0.6' }])], node);
    const [, svc] = onlyChain(rules, 'SVC');
    expect(svc.lines.filter((l) => l.includes('--rcheck --seconds 60 --reap'))).toHaveLength(2);
    for (const [, sep] of chainNamed(rules, 'SEP')) expect(sep.lines[1]).toContain('-m recent --set');
  });

  it('NodePort: an external chain masquerading to the service chain; externalTrafficPolicy Local keeps the client and uses local endpoints', () => {
    const ports = [{ name: 'http', port: 80, protocol: 'TCP' as const, targetPort: 8080, nodePort: 30080 }];
    const cluster = serviceRules(service({ type: 'NodePort', ports }), [slice([{ ip: '10.42.0.5', node: 'n1' }, { ip: '10.42.1.5', node: 'n2' }])], node);
    const [extName, ext] = onlyChain(cluster, 'EXT');
    expect(ext.lines[0]).toContain('-j STEST-MARK-MASQ');
    expect(cluster.shared).toContainEqual({ table: 'nat', chain: 'STEST-NODEPORTS', line: expect.stringMatching(new RegExp(`--dport 30080 .*-j ${extName}$`)) });
    const local = serviceRules(service({ type: 'NodePort', ports, externalTrafficPolicy: 'Local' }), [slice([{ ip: '10.42.0.5', node: 'n1' }, { ip: '10.42.1.5', node: 'n2' }])], node);
    const [, localExt] = onlyChain(local, 'EXT');
    const external = localExt.lines.filter((l) => !l.includes('-s 10.42.0.0/24') && !l.includes('--src-type LOCAL'));
    expect(external).toHaveLength(1);
    expect(external[0]).not.toContain('MARK-MASQ');
    const none = serviceRules(service({ type: 'NodePort', ports, externalTrafficPolicy: 'Local' }), [slice([{ ip: '10.42.1.5', node: 'n2' }])], node);
    const [, dropExt] = onlyChain(none, 'EXT');
    expect(dropExt.lines.at(-1)).toMatch(/-j DROP$/);
  });
});

describe('deltas', () => {
  const ips = (n: number) => Array.from({ length: n }, (_, i) => `10.42.${Math.floor(i / 250)}.${(i % 250) + 2}`);

  it('stable order: a newcomer takes a leaver\'s slot; a lone leaver is replaced by the first; a lone newcomer goes first', () => {
    expect(stableOrder(['a', 'b', 'c', 'd'], ['a', 'b', 'd', 'e'])).toEqual(['a', 'b', 'e', 'd']);
    expect(stableOrder(['a', 'b', 'c', 'd'], ['a', 'b', 'd'])).toEqual(['b', 'a', 'd']);
    expect(stableOrder(['a', 'b', 'c'], ['a', 'b', 'c', 'd'])).toEqual(['d', 'a', 'b', 'c']);
  });

  it('1,000 endpoints, one replaced, one gone, one added: only that endpoint\'s rules are written', () => {
    const orders = new Map<string, readonly string[]>();
    const all = ips(1000);
    const before = serviceRules(service(), [slice(all.map((ip) => ({ ip })))], node, orders);
    const replaced = all.map((ip, i) => ({ ip: i === 500 ? '10.42.9.9' : ip }));
    const after = serviceRules(service(), [slice(replaced)], node, orders);
    const delta = ruleDelta(before, after);
    // Its service-chain line (-D and -I), its new endpoint chain (2 lines), its old one (2 lines).
    expect(delta.rules).toBe(6);
    const text = restoreInput(delta);
    expect(text.match(/^-I /gm)).toHaveLength(1);
    expect(text.match(/^-D /gm)).toHaveLength(1);
    expect(text).toContain('10.42.9.9:8080');

    const gone = serviceRules(service(), [slice(replaced.filter((_, i) => i !== 700))], node, orders);
    const goneDelta = ruleDelta(after, gone);
    // The leaver's line and the first endpoint's line (moved into its slot), and the leaver's chain.
    expect(goneDelta.rules).toBe(2 + 1 + 2);
    const added = serviceRules(service(), [slice([...replaced.filter((_, i) => i !== 700), { ip: '10.42.8.8' }])], node, orders);
    expect(ruleDelta(gone, added).rules).toBe(1 + 2);
  });

  it('an unchanged Service writes nothing; a deleted one removes its chains after the jumps to them', () => {
    const rules = serviceRules(service(), [slice([{ ip: '10.42.0.5' }])], node);
    expect(ruleDelta(rules, serviceRules(service(), [slice([{ ip: '10.42.0.5' }])], node)).tables.size).toBe(0);
    const text = restoreInput(ruleDelta(rules, { chains: new Map(), shared: [] }));
    const lines = text.split('\n');
    const jumpGone = lines.findIndex((l) => l.startsWith('-D STEST-SERVICES'));
    const chainGone = lines.findIndex((l) => l.startsWith('-X STEST-SVC-'));
    expect(jumpGone).toBeGreaterThanOrEqual(0);
    expect(chainGone).toBeGreaterThan(jumpGone);
  });
});

describe('dual stack, external destinations, UDP', () => {
  const dual = (spec: Partial<NonNullable<Service['spec']>> = {}) =>
    service({ clusterIP: '10.43.0.20', clusterIPs: ['10.43.0.20', 'fd00:43::20'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'PreferDualStack', ...spec });
  const v6Slice = (ips: string[]): EndpointSlice => ({ ...slice(ips.map((ip) => ({ ip }))), metadata: { name: 'web-v6', namespace: 'ns', labels: { 'kubernetes.io/service-name': 'web' } }, addressType: 'IPv6' });
  const v6Node: ProxyNode = { ...node, podCidrV6: 'fd00:42::/64' };

  it('IPv6: the IPv6 cluster IP and the IPv6 slices only, /128 matches, bracketed DNAT targets, icmp6 rejects', () => {
    const slices = [slice([{ ip: '10.42.0.5' }]), v6Slice(['fd00:42::5', 'fd00:42::a'])];
    const v6 = serviceRules(dual(), slices, v6Node, new Map(), 6);
    expect(dnatTargets(v6)).toEqual(['[fd00:42::5]:8080', '[fd00:42::a]:8080']);
    expect(v6.shared).toEqual([{ table: 'nat', chain: 'STEST-SERVICES', line: expect.stringMatching(/^-d fd00:43::20\/128 -p tcp -m tcp --dport 80 .* -j STEST-SVC-/) }]);
    const [, svc] = onlyChain(v6, 'SVC');
    expect(svc.lines[0]).toMatch(/^! -s fd00:42::\/64 -d fd00:43::20\/128 /);
    for (const [, sep] of chainNamed(v6, 'SEP')) expect(sep.lines[0]).toMatch(/^-s fd00:42::[5a]\/128 /);
    // The IPv4 rules of the same Service see only the IPv4 slice.
    expect(dnatTargets(serviceRules(dual(), slices, v6Node, new Map(), 4))).toEqual(['10.42.0.5:8080']);
    // No IPv6 endpoint: an icmp6 REJECT.
    expect(serviceRules(dual(), [slice([{ ip: '10.42.0.5' }])], v6Node, new Map(), 6).shared).toEqual([
      { table: 'filter', chain: 'STEST-REJECT', line: expect.stringMatching(/^-d fd00:43::20\/128 .* -j REJECT --reject-with icmp6-port-unreachable$/) },
    ]);
    // A single-stack IPv4 Service has no IPv6 rules; without an IPv6 pod network every source is masqueraded.
    expect(serviceRules(service(), slices, v6Node, new Map(), 6)).toEqual({ chains: new Map(), shared: [] });
    expect(onlyChain(serviceRules(dual(), slices, node, new Map(), 6), 'SVC')[1].lines[0]).toMatch(/^-d fd00:43::20\/128 /);
  });

  it('IPv6 endpoints sort as numbers (a stable order), and sessionAffinity masks whole addresses', () => {
    const rules = serviceRules(dual({ sessionAffinity: 'ClientIP' }), [v6Slice(['fd00:42::10', 'fd00:42::9', 'fd00:42::1:0'])], v6Node, new Map(), 6);
    const [, svc] = onlyChain(rules, 'SVC');
    expect(svc.lines.filter((l) => l.includes('--mask ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'))).toHaveLength(3);
    const targets = [...rules.chains.entries()].filter(([n]) => n.startsWith('STEST-SEP-')).map(([n]) => n);
    const order = svc.lines.filter((l) => l.includes('statistic') || (!l.includes('recent') && l.includes('-j STEST-SEP-'))).map((l) => /-j (STEST-SEP-\S+)/.exec(l)![1]!);
    expect(new Set(order)).toEqual(new Set(targets));
    const dnatOf = (chain: string) => /--to-destination (\S+)/.exec(rules.chains.get(chain)!.lines[1]!)![1];
    expect(order.map(dnatOf)).toEqual(['[fd00:42::9]:8080', '[fd00:42::10]:8080', '[fd00:42::1:0]:8080']);
  });

  it('externalIPs and load-balancer ingress IPs jump to the external chain; without endpoints they REJECT', () => {
    const lb: Service = {
      ...service({ type: 'LoadBalancer', externalIPs: ['192.0.2.10', '2001:db8::10'], ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080, nodePort: 30080 }] }),
      status: { loadBalancer: { ingress: [{ ip: '198.51.100.7' }, { hostname: 'lb.example.com' }] } },
    };
    const rules = serviceRules(lb, [slice([{ ip: '10.42.0.5', node: 'n1' }])], node);
    const [ext] = onlyChain(rules, 'EXT');
    const services = rules.shared.filter((l) => l.chain === 'STEST-SERVICES').map((l) => l.line);
    expect(services).toEqual([
      expect.stringMatching(/^-d 10\.43\.0\.20\/32 .* -j STEST-SVC-/),
      expect.stringMatching(new RegExp(`^-d 192\\.0\\.2\\.10/32 -p tcp -m tcp --dport 80 .* -j ${ext}$`)),
      expect.stringMatching(new RegExp(`^-d 198\\.51\\.100\\.7/32 -p tcp -m tcp --dport 80 .* -j ${ext}$`)),
    ]);
    expect(rules.shared.some((l) => l.chain === 'STEST-NODEPORTS' && l.line.includes('--dport 30080'))).toBe(true);
    // externalTrafficPolicy Local applies to them too: this node's endpoints only.
    const local = serviceRules({ ...lb, spec: { ...lb.spec!, externalTrafficPolicy: 'Local' } }, [slice([{ ip: '10.42.0.5', node: 'n1' }, { ip: '10.42.0.6', node: 'n2' }])], node);
    expect(onlyChain(local, 'EXT')[1].lines.filter((l) => l.includes('-j STEST-SEP-'))).toHaveLength(1);
    // An ExternalIP-only ClusterIP Service gets the external chain too.
    expect(chainNamed(serviceRules(service({ externalIPs: ['192.0.2.11'] }), [slice([{ ip: '10.42.0.5' }])], node), 'EXT')).toHaveLength(1);
    const none = serviceRules(lb, [], node).shared.filter((l) => l.chain === 'STEST-REJECT').map((l) => l.line);
    expect(none).toEqual([
      expect.stringMatching(/^-d 10\.43\.0\.20\/32 .* -j REJECT/),
      expect.stringMatching(/^-m addrtype --dst-type LOCAL -p tcp -m tcp --dport 30080 .* -j REJECT/),
      expect.stringMatching(/^-d 192\.0\.2\.10\/32 -p tcp -m tcp --dport 80 .* -j REJECT/),
      expect.stringMatching(/^-d 198\.51\.100\.7\/32 -p tcp -m tcp --dport 80 .* -j REJECT/),
    ]);
  });

  it('UDP ports list their destinations and endpoints; the stale conntrack filters of a change', () => {
    const dns = service({ type: 'NodePort', externalIPs: ['192.0.2.53'], ports: [{ name: 'dns', port: 53, protocol: 'UDP', targetPort: 5353, nodePort: 30053 }] });
    const udpSlice = (ips: string[]): EndpointSlice => ({ ...slice(ips.map((ip) => ({ ip }))), ports: [{ name: 'dns', port: 5353, protocol: 'UDP' }] });
    const before = serviceRules(dns, [udpSlice(['10.42.0.5', '10.42.0.6'])], node);
    expect(before.udp).toEqual([{ key: 'ns/web:dns', destinations: ['10.43.0.20', '192.0.2.53'], nodePort: 30053, endpoints: ['10.42.0.5', '10.42.0.6'] }]);
    const after = serviceRules(dns, [udpSlice(['10.42.0.6'])], node);
    expect(staleUdpFilters(before.udp, after.udp)).toEqual([
      ['--orig-dst', '10.43.0.20', '--reply-src', '10.42.0.5'],
      ['--orig-dst', '192.0.2.53', '--reply-src', '10.42.0.5'],
      ['--orig-port-dst', '30053', '--reply-src', '10.42.0.5'],
    ]);
    // From no endpoint to one: the entries that hit the REJECT go.
    const empty = serviceRules(dns, [], node);
    expect(staleUdpFilters(empty.udp, after.udp)).toEqual([['--orig-dst', '10.43.0.20'], ['--orig-dst', '192.0.2.53'], ['--orig-port-dst', '30053']]);
    expect(staleUdpFilters(after.udp, after.udp)).toEqual([]);
    // TCP ports have nothing to flush.
    expect(serviceRules(service(), [slice([{ ip: '10.42.0.5' }])], node).udp).toBeUndefined();
  });
});
