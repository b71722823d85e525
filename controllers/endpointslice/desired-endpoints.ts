import type { Node, Pod, Service } from '../../src/api/index.js';
import {
  comparePorts,
  endpointConditions,
  endpointHostname,
  podIpOf,
  podReference,
  resolveTargetPort,
  serviceFamilies,
  shouldPodBeInEndpoints,
  sliceGroupKey,
  type DesiredSliceGroup,
  type SliceEndpoint,
  type SlicePort,
} from '../service-endpoints/index.js';

/** The node label a pod's endpoint takes its zone from. */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/**
 * A Service's endpoints as slices should hold them, grouped by address family and port set: one
 * endpoint per selected pod with an IP of the family (terminating pods too, with their
 * conditions), its node and that node's zone, its hostname, a zone hint when the Service asks
 * for `trafficDistribution: PreferClose` and every endpoint has a zone. Endpoints are ordered by
 * pod name, so an unchanged cluster gives the same groups.
 */
export function desiredGroups(service: Service, pods: readonly Pod[], nodeOf: (name: string) => Node | undefined): DesiredSliceGroup[] {
  const groups = new Map<string, { addressType: 'IPv4' | 'IPv6'; ports: SlicePort[]; endpoints: SliceEndpoint[] }>();
  const servicePorts = service.spec?.ports ?? [];
  const sorted = [...pods].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
  for (const family of serviceFamilies(service)) {
    for (const pod of sorted) {
      if (!shouldPodBeInEndpoints(pod, true)) continue;
      const ip = podIpOf(pod, family);
      if (ip === undefined) continue;
      const ports: SlicePort[] = [];
      for (const servicePort of servicePorts) {
        const port = resolveTargetPort(pod, servicePort);
        if (port === undefined) continue;
        ports.push({ name: servicePort.name ?? '', port, protocol: servicePort.protocol ?? 'TCP', ...(servicePort.appProtocol ? { appProtocol: servicePort.appProtocol } : {}) });
      }
      ports.sort(comparePorts);
      const nodeName = pod.spec?.nodeName;
      const zone = nodeName ? nodeOf(nodeName)?.metadata.labels?.[ZONE_LABEL] : undefined;
      const hostname = endpointHostname(pod, service);
      const endpoint: SliceEndpoint = {
        addresses: [ip],
        conditions: endpointConditions(pod, service),
        ...(hostname ? { hostname } : {}),
        targetRef: podReference(pod),
        ...(nodeName ? { nodeName } : {}),
        ...(zone ? { zone } : {}),
      };
      const key = sliceGroupKey(family, ports);
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { addressType: family, ports, endpoints: [] }));
      group.endpoints.push(endpoint);
    }
  }
  const out = [...groups.values()];
  if (service.spec?.trafficDistribution === 'PreferClose') for (const group of out) addZoneHints(group.endpoints);
  return out;
}

/**
 * Hints for PreferClose: each endpoint is for its own zone — only when every endpoint of the
 * group has a zone (a zone without endpoints of its own would otherwise get none).
 */
function addZoneHints(endpoints: SliceEndpoint[]): void {
  if (!endpoints.every((endpoint) => endpoint.zone !== undefined)) return;
  for (let i = 0; i < endpoints.length; i++) endpoints[i] = { ...endpoints[i]!, hints: { forZones: [{ name: endpoints[i]!.zone! }] } };
}
