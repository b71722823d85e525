// The proxy's rules as pure functions: what each Service becomes (kube-proxy's iptables layout)
// and how small the delta between two versions is.
import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../src/api/index.js';
import { restoreInput, ruleDelta, serviceRules, stableOrder, type ProxyNode } from '../../controllers/index.js';

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
