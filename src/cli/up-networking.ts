import { spawnSync } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Iptables, startClusterDns, startServiceProxy, type ClusterDns, type ServiceProxy } from '../../controllers/index.js';
import { Client, InformerFactory } from '../client/index.js';

/**
 * In-cluster networking of `svc up`'s node (docs/networking.md), beside the node agent in its
 * process:
 *
 * - the pod bridge made before containerd's CNI would make it, with the gateway address, so that
 *   what pods reach on the host can listen there from the start;
 * - the API server reachable from pods at `<gateway>:<secure port>` (the `kubernetes` Service's
 *   endpoint, `--advertise-address`): a TCP relay to the loopback address it listens on (none is
 *   needed when it listens on every address);
 * - the cluster DNS on `<gateway>:53` (the agent's `clusterDNS`);
 * - the service proxy (iptables), its chains named for this data dir, removed when it stops.
 */

export interface UpNetworkingOptions {
  readonly svcconfigPath: string;
  readonly bridge: string;
  readonly podCidr: string;
  readonly nodeName: string;
  /** The API server's port and the address it listens on. */
  readonly apiServer: { readonly bindAddress: string; readonly port: number };
  readonly clusterDomain: string;
  readonly warn: (message: string) => void;
}

export interface UpNetworking {
  readonly gateway: string;
  /** Absent when it could not listen (the agent then gives pods the host's resolver). */
  readonly dns?: ClusterDns;
  /** Stops DNS, the relay and the proxy; the proxy's rules are removed. */
  close(): Promise<void>;
}

/** The pod network's gateway: its first address (`10.42.0.0/24` → `10.42.0.1`), which the bridge holds. */
export function gatewayOf(podCidr: string): { address: string; prefix: number } {
  const [network = '', prefix = '24'] = podCidr.split('/');
  const octets = network.split('.').map(Number);
  octets[3] = (octets[3] ?? 0) + 1;
  return { address: octets.join('.'), prefix: Number(prefix) };
}

/** The bridge with its gateway address, up; made if missing (containerd's stop deletes it). */
export function ensureBridge(bridge: string, podCidr: string): string {
  const gateway = gatewayOf(podCidr);
  const ip = (...args: string[]) => spawnSync('ip', args, { encoding: 'utf8' });
  if (ip('link', 'show', bridge).status !== 0) {
    const made = ip('link', 'add', 'name', bridge, 'type', 'bridge');
    if (made.status !== 0) throw new Error(`cannot create bridge ${bridge}: ${made.stderr.trim()}`);
  }
  if (!ip('-4', 'addr', 'show', 'dev', bridge).stdout.includes(`inet ${gateway.address}/`)) {
    const added = ip('addr', 'add', `${gateway.address}/${gateway.prefix}`, 'dev', bridge);
    if (added.status !== 0) throw new Error(`cannot give ${bridge} ${gateway.address}: ${added.stderr.trim()}`);
  }
  ip('link', 'set', bridge, 'up');
  return gateway.address;
}

/** A TCP relay from `listen` to `target` (TLS passes through untouched: the API server authenticates). */
async function startRelay(listen: { address: string; port: number }, target: { address: string; port: number }): Promise<Server> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.address);
    sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.on('close', () => sockets.forEach((s) => s.destroy()));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.address, () => resolve());
  });
  return server;
}

/** The prefix of this cluster's iptables chains: from the bridge's name, so unique per data dir. */
export const proxyPrefix = (bridge: string): string => `S${bridge.replace(/^svc/, '').slice(0, 8).toUpperCase()}-`;

export async function startUpNetworking(o: UpNetworkingOptions): Promise<UpNetworking> {
  const gateway = ensureBridge(o.bridge, o.podCidr);
  const stops: (() => Promise<void> | void)[] = [];
  const close = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        o.warn(`networking: ${(error as Error).message}`);
      }
    }
  };
  try {
    const client = await Client.fromSvcconfig(o.svcconfigPath, { userAgent: 'svc-up/networking' });
    stops.push(() => client.close());
    const informers = new InformerFactory(client);
    stops.push(() => informers.stop());
    const everywhere = o.apiServer.bindAddress === '0.0.0.0' || o.apiServer.bindAddress === '::';
    if (!everywhere && o.apiServer.bindAddress !== gateway) {
      const target = o.apiServer.bindAddress.includes(':') ? '::1' : o.apiServer.bindAddress;
      const relay = await startRelay({ address: gateway, port: o.apiServer.port }, { address: target, port: o.apiServer.port });
      stops.push(() => new Promise<void>((resolve) => relay.close(() => resolve())));
    }
    // Without it pods still run, on the host's resolver: a port 53 taken on the gateway is said, not fatal.
    let dns: ClusterDns | undefined;
    try {
      dns = await startClusterDns({ informers, domain: o.clusterDomain, address: gateway, port: 53 });
      const running = dns;
      stops.push(() => running.close());
    } catch (error) {
      o.warn(`cluster DNS not started on ${gateway}:53 (${(error as Error).message}); pods use the host's resolver`);
    }
    const proxy: ServiceProxy = startServiceProxy({
      client,
      informers,
      prefix: proxyPrefix(o.bridge),
      nodeName: o.nodeName,
      podCidr: o.podCidr,
      iptables: new Iptables(),
      onError: (error) => o.warn(`service proxy: ${(error as Error).message}`),
    });
    // Stopped first of all (the stops run in reverse): its rules go while the API server still answers.
    stops.push(() => proxy.stop({ cleanup: true }));
    // The first sync is waited for (Services route once svc up says ready), but not forever: its
    // failures are reported through onError and retried with back-off.
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([proxy.ready.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 30_000)))]);
    clearTimeout(timer);
    if (!waited) o.warn('service proxy: the first sync of the Service rules has not finished in 30 s; it goes on trying');
    return { gateway, ...(dns ? { dns } : {}), close };
  } catch (error) {
    await close();
    throw error;
  }
}
