import type { UdpPort } from './service-rules.js';
import { runCommand } from './iptables.js';

/**
 * The conntrack tool (conntrack-tools), for UDP: a UDP "connection" is a conntrack entry that
 * keeps sending a client's datagrams to the endpoint it was DNATed to, even after that endpoint
 * is gone, and one made while a port had no endpoint keeps hitting the REJECT. kube-proxy deletes
 * those entries; so does the proxy, through this. `wrapper` as for Iptables (a network namespace).
 */
export class Conntrack {
  readonly #wrapper: readonly string[];

  constructor(wrapper: readonly string[] = []) {
    this.#wrapper = wrapper;
  }

  /** `conntrack -D` with these filters; none matching is fine (conntrack exits 1 then). */
  async delete(family: 4 | 6, filters: readonly string[]): Promise<void> {
    try {
      await runCommand(this.#wrapper, 'conntrack', ['-D', '-f', family === 6 ? 'ipv6' : 'ipv4', '-p', 'udp', ...filters]);
    } catch (error) {
      if (/0 flow entries have been deleted/.test((error as Error).message)) return;
      throw error;
    }
  }
}

/**
 * The conntrack deletions a Service's change asks for, as `conntrack -D` filters: for each UDP
 * port, every endpoint it no longer sends to (entries to each destination, or to the node port,
 * whose replies come from that endpoint: the ones DNATed to it),
 * and, for a port that had no endpoint and has one now, every entry to it (they point at the REJECT).
 */
export function staleUdpFilters(before: readonly UdpPort[] = [], after: readonly UdpPort[] = []): string[][] {
  const out: string[][] = [];
  const afterByKey = new Map(after.map((p) => [p.key, p]));
  const beforeByKey = new Map(before.map((p) => [p.key, p]));
  for (const port of before) {
    const now = new Set(afterByKey.get(port.key)?.endpoints ?? []);
    for (const endpoint of port.endpoints) {
      if (now.has(endpoint)) continue;
      for (const destination of port.destinations) out.push(['--orig-dst', destination, '--reply-src', endpoint]);
      if (port.nodePort !== undefined) out.push(['--orig-port-dst', String(port.nodePort), '--reply-src', endpoint]);
    }
  }
  for (const port of after) {
    if (port.endpoints.length === 0 || (beforeByKey.get(port.key)?.endpoints.length ?? 0) > 0) continue;
    for (const destination of port.destinations) out.push(['--orig-dst', destination]);
    if (port.nodePort !== undefined) out.push(['--orig-port-dst', String(port.nodePort)]);
  }
  return out;
}
