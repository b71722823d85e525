import type { Endpoints, Pod, Service } from '../../src/api/index.js';
import { endpointHostname, isHeadless, podIpOf, podReference, resolveTargetPort, serviceFamilies, shouldPodBeInEndpoints } from '../service-endpoints/index.js';
import { isPodReady } from '../workload/index.js';

export type EndpointSubset = NonNullable<Endpoints['subsets']>[number];
export type EndpointAddress = NonNullable<EndpointSubset['addresses']>[number];
export type EndpointPort = NonNullable<EndpointSubset['ports']>[number];

/** Upstream's maxCapacity: the most addresses one Endpoints object holds; past it the rest is cut and the object says so. */
export const MAX_ENDPOINT_ADDRESSES = 1000;
/** The annotation on an Endpoints object whose addresses were cut to MAX_ENDPOINT_ADDRESSES, and its value. */
export const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity';
export const OVER_CAPACITY_TRUNCATED = 'truncated';

interface PodAddress {
  readonly address: EndpointAddress;
  readonly ready: boolean;
  readonly ports: readonly EndpointPort[];
}

/**
 * The subsets of a Service's Endpoints from the pods it selects: each pod with an IP of the
 * Service's (first) family is an address, ready when the pod is Ready or the Service publishes
 * not-ready addresses; its ports are the Service's ports resolved against that pod (a named
 * `targetPort` the pod lacks leaves that port out for it; a pod left with no port is no address,
 * unless the Service is headless and has no ports at all). Addresses with the same ports share a
 * subset; the order is stable (ports by name, addresses by IP), so an unchanged cluster gives the
 * same object.
 */
export function desiredSubsets(service: Service, pods: readonly Pod[]): EndpointSubset[] {
  const tolerateUnready = service.spec?.publishNotReadyAddresses === true;
  const family = serviceFamilies(service)[0]!;
  const servicePorts = service.spec?.ports ?? [];
  const entries: PodAddress[] = [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const ip = podIpOf(pod, family);
    if (ip === undefined) continue;
    const hostname = endpointHostname(pod, service);
    const address: EndpointAddress = { ip, ...(hostname ? { hostname } : {}), ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}), targetRef: podReference(pod) };
    const ready = tolerateUnready || isPodReady(pod);
    if (servicePorts.length === 0) {
      if (isHeadless(service)) entries.push({ address, ready, ports: [] });
      continue;
    }
    const ports: EndpointPort[] = [];
    for (const servicePort of servicePorts) {
      const port = resolveTargetPort(pod, servicePort);
      if (port === undefined) continue;
      ports.push({ ...(servicePort.name ? { name: servicePort.name } : {}), port, protocol: servicePort.protocol ?? 'TCP', ...(servicePort.appProtocol ? { appProtocol: servicePort.appProtocol } : {}) });
    }
    if (ports.length > 0) entries.push({ address, ready, ports });
  }
  return repack(entries);
}

/** Groups addresses by identical port sets (upstream's RepackSubsets), in a stable order. */
function repack(entries: readonly PodAddress[]): EndpointSubset[] {
  const groups = new Map<string, { ports: EndpointPort[]; ready: EndpointAddress[]; notReady: EndpointAddress[] }>();
  for (const entry of entries) {
    const ports = [...entry.ports].sort(comparePorts);
    const key = JSON.stringify(ports);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ports, ready: [], notReady: [] }));
    (entry.ready ? group.ready : group.notReady).push(entry.address);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, group]) => ({
      ...(group.ready.length > 0 ? { addresses: group.ready.sort(compareAddresses) } : {}),
      ...(group.notReady.length > 0 ? { notReadyAddresses: group.notReady.sort(compareAddresses) } : {}),
      ...(group.ports.length > 0 ? { ports: group.ports } : {}),
    }));
}

const comparePorts = (a: EndpointPort, b: EndpointPort): number => (a.name ?? '').localeCompare(b.name ?? '') || a.port - b.port || (a.protocol ?? '').localeCompare(b.protocol ?? '');
const compareAddresses = (a: EndpointAddress, b: EndpointAddress): number => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : (a.targetRef?.uid ?? '').localeCompare(b.targetRef?.uid ?? ''));

/**
 * Cuts the subsets to MAX_ENDPOINT_ADDRESSES addresses (upstream's truncateEndpoints): ready
 * addresses are kept first; whichever kind has to be cut is cut in each subset in proportion to
 * its share, rounded up, until the total fits. Answers the subsets and whether anything was cut.
 */
export function truncateSubsets(subsets: readonly EndpointSubset[], max = MAX_ENDPOINT_ADDRESSES): { subsets: EndpointSubset[]; truncated: boolean } {
  let ready = 0;
  let notReady = 0;
  for (const subset of subsets) {
    ready += subset.addresses?.length ?? 0;
    notReady += subset.notReadyAddresses?.length ?? 0;
  }
  if (ready + notReady <= max) return { subsets: [...subsets], truncated: false };
  const cutReady = ready > max;
  // The room for the kind being cut, and how many of that kind there are.
  const room = cutReady ? max : max - ready;
  const total = cutReady ? ready : notReady;
  let left = room;
  const out = subsets.map((subset): EndpointSubset => {
    const own = cutReady ? (subset.addresses?.length ?? 0) : (subset.notReadyAddresses?.length ?? 0);
    const share = Math.min(Math.ceil((own / total) * room), left);
    if (cutReady) {
      const addresses = (subset.addresses ?? []).slice(0, share);
      left -= addresses.length;
      const { notReadyAddresses: _dropped, addresses: _all, ...rest } = subset;
      return { ...rest, ...(addresses.length > 0 ? { addresses } : {}) };
    }
    const notReadyAddresses = (subset.notReadyAddresses ?? []).slice(0, share);
    left -= notReadyAddresses.length;
    const { notReadyAddresses: _all, ...rest } = subset;
    return { ...rest, ...(notReadyAddresses.length > 0 ? { notReadyAddresses } : {}) };
  });
  return { subsets: out.filter((subset) => (subset.addresses?.length ?? 0) + (subset.notReadyAddresses?.length ?? 0) > 0), truncated: true };
}
