import type { Node, Pod, Service } from '../../src/api/index.js';
import {
  comparePorts,
  endpointConditions,
  endpointHostname,
  podIpOf,
  podReference,
  resolveTargetPort,
  serviceFamilies,
  serviceSelects,
  shouldPodBeInEndpoints,
  sliceGroupKey,
  type DesiredSliceGroup,
  type SliceEndpoint,
  type SlicePort,
} from '../service-endpoints/index.js';

/** The node label a pod's endpoint takes its zone from. */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** One pod's part of a Service's slices, per address family of the Service (undefined: no endpoint of that family). */
interface PodEndpoints {
  readonly name: string;
  readonly nodeName: string | undefined;
  readonly zone: string | undefined;
  readonly byFamily: readonly ({ readonly key: string; readonly ports: SlicePort[]; readonly endpoint: SliceEndpoint } | undefined)[];
}

/**
 * Each pod's endpoints as one Service version sees them, kept while neither changes. The
 * informers hand out one object per version of a pod or Service, so a sync of a large Service
 * under a stream of readiness flips computes the endpoints of the pods that changed since the
 * last sync, not of all of them (issue #24: 5,000 pods read through the informer's lazy views
 * cost ~85 ms a sync). Held weakly: a replaced Service or pod version takes its entries with it.
 * The endpoints handed out are frozen, since later syncs share them.
 */
export class EndpointCache {
  /** null: the Service does not select the pod. */
  readonly #byService = new WeakMap<Service, WeakMap<Pod, PodEndpoints | null>>();

  /** The pod's endpoints for the Service, or undefined when the Service does not select the pod. */
  endpointsOf(service: Service, pod: Pod, zoneOf: (nodeName: string) => string | undefined): PodEndpoints | undefined {
    let pods = this.#byService.get(service);
    if (pods === undefined) this.#byService.set(service, (pods = new WeakMap()));
    const cached = pods.get(pod);
    if (cached === null) return undefined;
    if (cached === undefined && !serviceSelects(service, pod)) {
      pods.set(pod, null);
      return undefined;
    }
    // A node's zone is read afresh: a relabelled node changes its pods' endpoints without a pod version.
    if (cached !== undefined && cached.zone === (cached.nodeName ? zoneOf(cached.nodeName) : undefined)) return cached;
    const nodeName = pod.spec?.nodeName;
    const computed = podEndpoints(service, pod, nodeName ? zoneOf(nodeName) : undefined);
    pods.set(pod, computed);
    return computed;
  }
}

function podEndpoints(service: Service, pod: Pod, zone: string | undefined): PodEndpoints {
  const name = pod.metadata.name!;
  const families = serviceFamilies(service);
  const nodeName = pod.spec?.nodeName;
  if (!shouldPodBeInEndpoints(pod, true)) return { name, nodeName, zone, byFamily: families.map(() => undefined) };
  const servicePorts = service.spec?.ports ?? [];
  const hostname = endpointHostname(pod, service);
  const conditions = Object.freeze(endpointConditions(pod, service));
  const targetRef = Object.freeze(podReference(pod));
  const byFamily = families.map((family) => {
    const ip = podIpOf(pod, family);
    if (ip === undefined) return undefined;
    const ports: SlicePort[] = [];
    for (const servicePort of servicePorts) {
      const port = resolveTargetPort(pod, servicePort);
      if (port === undefined) continue;
      ports.push({ name: servicePort.name ?? '', port, protocol: servicePort.protocol ?? 'TCP', ...(servicePort.appProtocol ? { appProtocol: servicePort.appProtocol } : {}) });
    }
    ports.sort(comparePorts);
    const endpoint: SliceEndpoint = Object.freeze({
      addresses: Object.freeze([ip]) as string[],
      conditions,
      ...(hostname ? { hostname } : {}),
      targetRef,
      ...(nodeName ? { nodeName } : {}),
      ...(zone ? { zone } : {}),
    });
    return { key: sliceGroupKey(family, ports), ports, endpoint };
  });
  return { name, nodeName, zone, byFamily };
}

/**
 * A Service's endpoints as slices should hold them, grouped by address family and port set: one
 * endpoint per selected pod with an IP of the family (terminating pods too, with their
 * conditions), its node and that node's zone, its hostname, a zone hint when the Service asks
 * for `trafficDistribution: PreferClose` and every endpoint has a zone. Endpoints are ordered by
 * pod name, so an unchanged cluster gives the same groups. `pods` are the namespace's (those the
 * Service does not select are left out); `cache` keeps each pod's endpoints between calls.
 */
export function desiredGroups(service: Service, pods: readonly Pod[], nodeOf: (name: string) => Node | undefined, cache: EndpointCache = new EndpointCache()): DesiredSliceGroup[] {
  // Many pods share a node: each node's zone is read once a call.
  const zones = new Map<string, string | undefined>();
  const zoneOf = (nodeName: string): string | undefined => {
    if (zones.has(nodeName)) return zones.get(nodeName);
    const zone = nodeOf(nodeName)?.metadata.labels?.[ZONE_LABEL];
    zones.set(nodeName, zone);
    return zone;
  };
  const selected: PodEndpoints[] = [];
  for (const pod of pods) {
    const endpoints = cache.endpointsOf(service, pod, zoneOf);
    if (endpoints !== undefined) selected.push(endpoints);
  }
  selected.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const groups = new Map<string, { addressType: 'IPv4' | 'IPv6'; ports: SlicePort[]; endpoints: SliceEndpoint[] }>();
  serviceFamilies(service).forEach((family, f) => {
    for (const pod of selected) {
      const entry = pod.byFamily[f];
      if (entry === undefined) continue;
      let group = groups.get(entry.key);
      if (!group) groups.set(entry.key, (group = { addressType: family, ports: entry.ports, endpoints: [] }));
      group.endpoints.push(entry.endpoint);
    }
  });
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
