import { isIP } from 'node:net';
import type { Endpoints } from '../../src/api/index.js';
import { comparePorts, sliceGroupKey, type DesiredSliceGroup, type SliceEndpoint, type SlicePort } from '../service-endpoints/index.js';

/** What mirroring makes of an Endpoints object: its slice groups, and how many addresses were left out past the maximum. */
export interface MirroredEndpoints {
  readonly groups: DesiredSliceGroup[];
  readonly truncated: number;
  readonly invalid: number;
}

/**
 * The slice groups of a custom Endpoints object (upstream's mirroring): each subset's addresses
 * by address family, with that subset's ports; ready addresses are `ready: true`, not-ready ones
 * `ready: false`. At most `maxPerSubset` addresses of a subset are mirrored (ready ones first);
 * an address that is not an IP is skipped.
 */
export function mirroredGroups(endpoints: Endpoints, maxPerSubset: number): MirroredEndpoints {
  const groups = new Map<string, { addressType: 'IPv4' | 'IPv6'; ports: SlicePort[]; endpoints: SliceEndpoint[]; seen: Set<string> }>();
  let truncated = 0;
  let invalid = 0;
  for (const subset of endpoints.subsets ?? []) {
    const ports: SlicePort[] = (subset.ports ?? []).map((port) => ({ name: port.name ?? '', port: port.port, protocol: port.protocol ?? 'TCP', ...(port.appProtocol ? { appProtocol: port.appProtocol } : {}) })).sort(comparePorts);
    const addresses = [...(subset.addresses ?? []).map((address) => ({ address, ready: true })), ...(subset.notReadyAddresses ?? []).map((address) => ({ address, ready: false }))];
    if (addresses.length > maxPerSubset) truncated += addresses.length - maxPerSubset;
    for (const { address, ready } of addresses.slice(0, maxPerSubset)) {
      const version = isIP(address.ip);
      if (version === 0) {
        invalid++;
        continue;
      }
      const addressType = version === 4 ? 'IPv4' : 'IPv6';
      const key = sliceGroupKey(addressType, ports);
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { addressType, ports, endpoints: [], seen: new Set() }));
      // One address twice in a subset (ready and not) is one endpoint: the first wins.
      if (group.seen.has(address.ip)) continue;
      group.seen.add(address.ip);
      group.endpoints.push({
        addresses: [address.ip],
        conditions: { ready },
        ...(address.hostname ? { hostname: address.hostname } : {}),
        ...(address.targetRef ? { targetRef: address.targetRef } : {}),
        ...(address.nodeName ? { nodeName: address.nodeName } : {}),
      });
    }
  }
  return { groups: [...groups.values()].map(({ addressType, ports, endpoints: list }) => ({ addressType, ports, endpoints: list })), truncated, invalid };
}
