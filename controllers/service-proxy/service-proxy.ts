import { performance } from 'node:perf_hooks';
import { map, Subject, type Observable } from 'rxjs';
import { SERVICE_NAME_LABELS, type EndpointSlice, type Service } from '../../src/api/index.js';
import { builtin, type Client, type InformerFactory } from '../../src/client/index.js';
import { controller, type ControllerResult } from '../controller.js';
import { Conntrack, staleUdpFilters } from './conntrack.js';
import { Iptables } from './iptables.js';
import { restoreInput, ruleDelta } from './rule-delta.js';
import { EMPTY_RULES, MASQ_MARK, serviceRules, sharedChains, type EndpointOrders, type IpFamily, type ProxyNode, type ServiceRules } from './service-rules.js';

/**
 * Service routing on a node, as kube-proxy's iptables mode: a controller on the framework whose
 * triggers are Services and EndpointSlices (keyed by Service) and whose reconcile writes the
 * Service's rules (service-rules.ts) as a delta against what it wrote last (rule-delta.ts), with
 * `iptables-restore --noflush`: only that Service's chains and lines change.
 *
 * Its first reconcile writes everything at once: the shared chains (declared again, so emptied),
 * every Service's chains, and the removal of any chain of its prefix no Service needs any more —
 * what a proxy stopped without cleaning up left behind. So rules survive the proxy's restart
 * (traffic keeps flowing while it is down) and are made exact when it is back. `stop({ cleanup:
 * true })` removes every chain and jump it made.
 *
 * Dual stack: given `ip6tables` (an Iptables of family 6), the same is done for the Services' IPv6
 * addresses and IPv6 slices with ip6tables, a second set of the same chains. UDP endpoints that go
 * have their conntrack entries deleted (conntrack.ts), as kube-proxy does.
 */

export interface ServiceProxyOptions extends ProxyNode {
  readonly client: Client;
  readonly informers: InformerFactory;
  readonly iptables?: Iptables;
  /** The IPv6 rules' binaries (family 6); without it, IPv6 addresses get no rules. */
  readonly ip6tables?: Iptables | undefined;
  /** Deletes stale UDP conntrack entries; default the host's `conntrack`. */
  readonly conntrack?: Conntrack;
  /** After each write: which Service (or `*` for the full sync), how many rules it wrote, how long it took. */
  readonly onSync?: (sync: ProxySync) => void;
  readonly onError?: (error: unknown) => void;
}

export interface ProxySync {
  readonly key: string;
  readonly rules: number;
  /** From the reconcile's start to the rules written. */
  readonly ms: number;
  /** Of which computing the rules and the delta (the rest is iptables-restore). */
  readonly computeMs: number;
}

export interface ServiceProxy {
  /** Resolves after the first full sync. */
  readonly ready: Promise<void>;
  /** Stops the loop; with `cleanup`, removes every rule and chain of the proxy (the host as it was). */
  stop(options?: { readonly cleanup?: boolean }): Promise<void>;
}

const SERVICE_INDEX = 'service';
const FULL_SYNC = '*';

/** The Service a slice belongs to, `namespace/name`, under either spelling of the label. */
function serviceOfSlice(slice: EndpointSlice): string | undefined {
  for (const label of SERVICE_NAME_LABELS) {
    const name = slice.metadata.labels?.[label];
    if (name) return `${slice.metadata.namespace ?? ''}/${name}`;
  }
  return undefined;
}

/** The jumps from the built-in chains into the proxy's: `[table, chain, rule]`. */
function jumps(node: ProxyNode, family: IpFamily): [string, string, string[]][] {
  const chains = sharedChains(node.prefix);
  const comment = (what: string) => ['-m', 'comment', '--comment', `${node.prefix}${what}`];
  const podCidr = family === 4 ? node.podCidr : node.podCidrV6;
  return [
    // Pods' traffic to cluster IPs: only this cluster's pod network, so two clusters on one host keep apart.
    ...(podCidr ? [['nat', 'PREROUTING', ['-s', podCidr, ...comment('services'), '-j', chains.services]] as [string, string, string[]]] : []),
    ['nat', 'PREROUTING', ['-m', 'addrtype', '--dst-type', 'LOCAL', ...comment('nodeports'), '-j', chains.nodePorts]],
    ['nat', 'OUTPUT', [...comment('services'), '-j', chains.services]],
    ['nat', 'OUTPUT', ['-m', 'addrtype', '--dst-type', 'LOCAL', ...comment('nodeports'), '-j', chains.nodePorts]],
    ['nat', 'POSTROUTING', [...comment('postrouting'), '-j', chains.postrouting]],
    ['filter', 'INPUT', ['-m', 'conntrack', '--ctstate', 'NEW', ...comment('reject'), '-j', chains.reject]],
    ['filter', 'FORWARD', ['-m', 'conntrack', '--ctstate', 'NEW', ...comment('reject'), '-j', chains.reject]],
    ['filter', 'OUTPUT', ['-m', 'conntrack', '--ctstate', 'NEW', ...comment('reject'), '-j', chains.reject]],
  ];
}

/** The shared chains' fixed lines: the masquerade mark and its use on the way out. */
function baseLines(prefix: string): { nat: string[]; filter: string[] } {
  const c = sharedChains(prefix);
  return {
    nat: [
      `:${c.services} - [0:0]`,
      `:${c.nodePorts} - [0:0]`,
      `:${c.markMasq} - [0:0]`,
      `:${c.postrouting} - [0:0]`,
      `-A ${c.markMasq} -j MARK --or-mark 0x4000`,
      `-A ${c.postrouting} -m mark ! --mark ${MASQ_MARK} -j RETURN`,
      `-A ${c.postrouting} -j MARK --xor-mark 0x4000`,
      `-A ${c.postrouting} -j MASQUERADE --random-fully`,
    ],
    filter: [`:${c.reject} - [0:0]`],
  };
}

/** Names of the chains of `prefix` that exist now, per table. */
async function existingChains(iptables: Iptables, prefix: string, table: 'nat' | 'filter'): Promise<string[]> {
  const saved = await iptables.save(table);
  return saved
    .split('\n')
    .filter((line) => line.startsWith(`:${prefix}`))
    .map((line) => line.slice(1).split(' ')[0]!);
}

/** One address family's state: its binaries, the rules it wrote, its endpoint orders. */
interface FamilyState {
  readonly family: IpFamily;
  readonly iptables: Iptables;
  readonly applied: Map<string, ServiceRules>;
  readonly orders: EndpointOrders;
}

export function startServiceProxy(options: ServiceProxyOptions): ServiceProxy {
  const iptables = options.iptables ?? new Iptables();
  const conntrack = options.conntrack ?? new Conntrack();
  const node: ProxyNode = { prefix: options.prefix, nodeName: options.nodeName, podCidr: options.podCidr, podCidrV6: options.podCidrV6 };
  const families: FamilyState[] = [
    { family: 4, iptables, applied: new Map(), orders: new Map() },
    ...(options.ip6tables ? [{ family: 6 as const, iptables: options.ip6tables, applied: new Map<string, ServiceRules>(), orders: new Map() }] : []),
  ];
  const services = options.informers.informer(builtin.services);
  // Decoded once as they arrive: every sync of a Service reads all of its slices' endpoints.
  const slices = options.informers.informer(builtin.endpointSlices, {
    decode: 'eager',
    indexers: { [SERVICE_INDEX]: (slice: EndpointSlice) => { const key = serviceOfSlice(slice); return key ? [key] : []; } },
  });
  let fullSyncing: Promise<void> | undefined;
  const ensureFullSync = (): Promise<void> =>
    (fullSyncing ??= fullSync().catch((error: unknown) => {
      fullSyncing = undefined;
      throw error;
    }));
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const stop$ = new Subject<void>();

  const rulesOf = (key: string, state: FamilyState): ServiceRules => {
    const service: Service | undefined = services.store.get(key);
    if (!service) return EMPTY_RULES;
    return serviceRules(service, slices.store.byIndex(SERVICE_INDEX, key), node, state.orders, state.family);
  };

  /** Deletes the UDP entries the change left pointing at gone endpoints (or at a REJECT); a failure is reported, never fails the sync. */
  const flushUdp = async (state: FamilyState, before: ServiceRules, after: ServiceRules): Promise<void> => {
    for (const filters of staleUdpFilters(before.udp, after.udp)) {
      await conntrack.delete(state.family, filters).catch((error: unknown) => options.onError?.(error));
    }
  };

  const fullSyncFamily = async (state: FamilyState): Promise<number> => {
    const base = baseLines(node.prefix);
    const desired = new Map<string, ServiceRules>();
    for (const key of services.store.keys()) {
      const rules = rulesOf(key, state);
      if (rules.chains.size > 0 || rules.shared.length > 0) desired.set(key, rules);
    }
    const declared = { nat: new Set<string>(), filter: new Set<string>() };
    const body = { nat: [...base.nat], filter: [...base.filter] };
    let count = 0;
    for (const rules of desired.values()) {
      for (const [name, chain] of rules.chains) {
        declared[chain.table].add(name);
        body[chain.table].unshift(`:${name} - [0:0]`);
        for (const line of chain.lines) body[chain.table].push(`-A ${name} ${line}`);
        count += chain.lines.length;
      }
      for (const l of rules.shared) body[l.table].push(`-A ${l.chain} ${l.line}`);
      count += rules.shared.length;
    }
    const keep = new Set([...Object.values(sharedChains(node.prefix))]);
    let input = '';
    for (const table of ['filter', 'nat'] as const) {
      const stale = (await existingChains(state.iptables, node.prefix, table)).filter((name) => !keep.has(name) && !declared[table].has(name));
      const lines = [...body[table], ...stale.map((name) => `-F ${name}`), ...stale.map((name) => `-X ${name}`)];
      input += `*${table}\n${lines.join('\n')}\nCOMMIT\n`;
    }
    await state.iptables.restore(input);
    // The jumps into the chains, once the chains exist; kept if there already.
    for (const [table, chain, rule] of jumps(node, state.family)) if (!(await state.iptables.has(table, chain, rule))) await state.iptables.insert(table, chain, rule);
    const previous = new Map(state.applied);
    state.applied.clear();
    for (const [key, rules] of desired) state.applied.set(key, rules);
    for (const key of new Set([...previous.keys(), ...desired.keys()])) await flushUdp(state, previous.get(key) ?? EMPTY_RULES, desired.get(key) ?? EMPTY_RULES);
    return count;
  };

  const fullSync = async (): Promise<void> => {
    const started = performance.now();
    let count = 0;
    for (const state of families) count += await fullSyncFamily(state);
    options.onSync?.({ key: FULL_SYNC, rules: count, ms: performance.now() - started, computeMs: 0 });
    markReady();
  };

  const syncService = async (key: string): Promise<void> => {
    const started = performance.now();
    let rules = 0;
    let computeMs = 0;
    for (const state of families) {
      const begun = performance.now();
      const before = state.applied.get(key) ?? EMPTY_RULES;
      const after = rulesOf(key, state);
      const delta = ruleDelta(before, after);
      const input = restoreInput(delta);
      computeMs += performance.now() - begun;
      if (delta.tables.size > 0) await state.iptables.restore(input);
      if (after.chains.size > 0 || after.shared.length > 0) state.applied.set(key, after);
      else state.applied.delete(key);
      rules += delta.rules;
      await flushUdp(state, before, after);
    }
    if (rules > 0) options.onSync?.({ key, rules, ms: performance.now() - started, computeMs });
  };

  const results: Observable<ControllerResult<unknown>> = controller<unknown>({
    name: 'service-proxy',
    for: services,
    watches: [
      {
        events$: slices.events$.pipe(map((e) => serviceOfSlice(e.object) ?? '')),
        synced$: slices.synced$,
      },
    ],
    stop$,
    drainTimeoutMs: 5_000,
    reconcile: async (key) => {
      if (!key) return;
      // The first reconcile, whatever its key, writes everything (every cache is synced by then).
      if (!fullSyncing) return ensureFullSync();
      await fullSyncing;
      await syncService(key);
    },
  });
  const done = new Promise<void>((resolve) => {
    results.subscribe({
      next: (result) => {
        if ((result.type === 'retry' || result.type === 'terminal') && options.onError) options.onError(result.error);
      },
      error: (error: unknown) => {
        options.onError?.(error);
        resolve();
      },
      complete: resolve,
    });
  });
  // No Service at all still needs the shared chains: the kubernetes Service always exists, but do not rely on it.
  void services.waitForSync().then(async () => {
    await slices.waitForSync();
    if (services.store.size === 0) await ensureFullSync().catch((error: unknown) => options.onError?.(error));
  });

  let stopping: Promise<void> | undefined;
  return {
    ready,
    stop: (stopOptions = {}) =>
      (stopping ??= (async () => {
        stop$.next();
        await done;
        if (stopOptions.cleanup) for (const state of families) await removeAll(state.iptables, node);
      })()),
  };
}

/** Every jump and chain of the proxy's prefix, gone (from the tables of `iptables`' family). */
export async function removeAll(iptables: Iptables, node: ProxyNode): Promise<void> {
  for (const [table, chain, rule] of jumps(node, iptables.family)) await iptables.remove(table, chain, rule);
  let input = '';
  for (const table of ['filter', 'nat'] as const) {
    const chains = await existingChains(iptables, node.prefix, table);
    if (chains.length > 0) input += `*${table}\n${[...chains.map((c) => `-F ${c}`), ...chains.map((c) => `-X ${c}`)].join('\n')}\nCOMMIT\n`;
  }
  if (input) await iptables.restore(input);
}
