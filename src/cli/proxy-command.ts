import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { Iptables, removeAll, startClusterDns, startServiceProxy, type ClusterDns } from '../../controllers/index.js';
import { Client, InformerFactory } from '../client/index.js';
import { closeOnSignal, EXIT_FAILED, EXIT_OK, EXIT_USAGE, isExit, readCommandLine, type CommandIO } from './command.js';
import type { CommandDoc } from './flag-docs.js';
import { flag } from './flag-spec.js';
import { defineFlags } from './flags.js';

/**
 * `svc proxy`: the service proxy (and, with --dns-address, the cluster DNS) on a node that runs
 * them outside `svc up` — beside a node agent joined on its own. docs/networking.md.
 */
export const proxyFlags = defineFlags({
  svcconfig: flag.string({ valueName: 'path', meaning: 'The cluster (default: $SVCCONFIG, $KUBECONFIG, ~/.kube/config, in-cluster).' }),
  'hostname-override': flag.string({ valueName: 'name', meaning: "This node's name, for internalTrafficPolicy and externalTrafficPolicy Local (default: the host name, lower-cased)." }),
  'cluster-cidr': flag.string({
    valueName: 'cidr',
    meaning: "This node's pod network: its traffic to cluster IPs is routed, traffic from elsewhere to them is masqueraded. An IPv4 CIDR, or an IPv4 and an IPv6 one separated by a comma (dual stack: IPv6 Services get ip6tables rules). Required unless --cleanup.",
    validate: clusterCidrProblem,
  }),
  'chain-prefix': flag.string({
    default: 'SVC-',
    valueName: 'prefix',
    meaning: 'The prefix of every iptables chain the proxy makes (two proxies on one host need two prefixes).',
    validate: (prefix) => (/^[A-Z0-9][A-Z0-9-]{0,11}$/.test(prefix) ? undefined : 'must be 1 to 12 of A-Z, 0-9 and -, starting with a letter or digit'),
  }),
  cleanup: flag.bool({ meaning: 'Remove every chain and jump of --chain-prefix, then exit (as kube-proxy --cleanup).' }),
  'dns-address': flag.string({ valueName: 'ip', meaning: 'Also serve the cluster DNS on this address (the node agent\'s --cluster-dns).', validate: (ip) => (isIP(ip) ? undefined : 'not an IP address') }),
  'dns-port': flag.int({ default: 53, valueName: 'port', meaning: 'The cluster DNS port (UDP and TCP).', validate: (port) => (port >= 0 && port <= 65535 ? undefined : 'must be between 0 and 65535') }),
  'cluster-domain': flag.string({ default: 'cluster.local', valueName: 'domain', meaning: 'The domain the cluster DNS answers for.' }),
});

export const proxyDoc: CommandDoc = {
  name: 'svc proxy',
  usage: 'svc proxy --cluster-cidr=CIDR [flags]',
  summary:
    "Routes Service traffic on this node as kube-proxy's iptables mode does (ClusterIP, NodePort, session affinity, traffic policies), driven by the cluster's Services and EndpointSlices; with --dns-address also serves the cluster DNS. Stopping it (Ctrl-C) removes its rules. svc up runs the same in its own process. docs/networking.md.",
  source: 'src/cli/proxy-command.ts',
};

/** An IPv4 CIDR, or IPv4 and IPv6 ones separated by a comma; what is wrong otherwise. */
function clusterCidrProblem(value: string): string | undefined {
  const cidrs = value.split(',').map((c) => c.trim());
  const family = (cidr: string) => {
    const [ip, bits, ...rest] = cidr.split('/');
    const f = isIP(ip ?? '');
    if (rest.length > 0 || bits === undefined || !/^\d+$/.test(bits) || f === 0 || Number(bits) > (f === 4 ? 32 : 128)) return 0;
    return f;
  };
  const families = cidrs.map(family);
  if (families.includes(0)) return 'not a CIDR';
  if (families[0] !== 4 || families.length > 2 || (families.length === 2 && families[1] !== 6)) return 'an IPv4 CIDR, optionally followed by an IPv6 one';
  return undefined;
}

export async function proxy(argv: readonly string[], io: CommandIO): Promise<number> {
  const values = readCommandLine(proxyDoc, proxyFlags, argv, io, (v) => v);
  if (isExit(values)) return values.exitCode;
  // kube-proxy's --cluster-cidr: one range, or an IPv4 and an IPv6 one (dual stack: ip6tables too).
  const cidrs = (values.clusterCidr ?? '').split(',').map((c) => c.trim()).filter((c) => c !== '');
  const podCidrV6 = cidrs.find((c) => c.includes(':'));
  const node = { prefix: values.chainPrefix, nodeName: values.hostnameOverride ?? hostname().toLowerCase(), podCidr: cidrs.find((c) => !c.includes(':')) ?? '', podCidrV6 };
  const iptables = new Iptables();
  const ip6tables = podCidrV6 !== undefined ? new Iptables([], 6) : undefined;
  if (values.cleanup) {
    await removeAll(iptables, node);
    if (ip6tables) await removeAll(ip6tables, node);
    return EXIT_OK;
  }
  if (values.clusterCidr === undefined) {
    io.err(`${proxyDoc.name}: --cluster-cidr is required (this node's pod network)`);
    return EXIT_USAGE;
  }
  const options = { userAgent: 'svc-proxy' };
  const client = values.svcconfig !== undefined ? await Client.fromSvcconfig(values.svcconfig, options) : await Client.fromEnv(options);
  const informers = new InformerFactory(client);
  let dns: ClusterDns | undefined;
  if (values.dnsAddress !== undefined) {
    try {
      dns = await startClusterDns({ informers, domain: values.clusterDomain, address: values.dnsAddress, port: values.dnsPort });
      io.out(`cluster DNS on ${values.dnsAddress}:${dns.port}`);
    } catch (error) {
      io.err(`${proxyDoc.name}: cluster DNS: ${(error as Error).message}`);
      informers.stop();
      await client.close();
      return EXIT_FAILED;
    }
  }
  const running = startServiceProxy({ client, informers, ...node, iptables, ip6tables, onError: (error) => io.err(`${proxyDoc.name}: ${(error as Error).message}`) });
  void running.ready.then(() => io.out(`service rules synced (chains ${node.prefix}*)`));
  return closeOnSignal(async () => {
    await running.stop({ cleanup: true });
    await dns?.close();
    informers.stop();
    await client.close();
  }, io);
}
