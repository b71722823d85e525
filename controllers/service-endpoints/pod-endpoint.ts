import type { EndpointSlice, Pod, Service } from '../../src/api/index.js';
import { isPodReady } from '../workload/index.js';

/** The address families an endpoint may have: an EndpointSlice's `addressType` for pods. */
export type AddressFamily = 'IPv4' | 'IPv6';

/** The family of an IP address as the pod reports it. */
export const familyOf = (ip: string): AddressFamily => (ip.includes(':') ? 'IPv6' : 'IPv4');

/** Every IP the pod reports (`status.podIPs`, else `status.podIP`), without repeats. */
export function podIps(pod: Pod): string[] {
  const ips = (pod.status?.podIPs ?? []).map((entry) => entry.ip).filter((ip): ip is string => typeof ip === 'string' && ip !== '');
  const single = pod.status?.podIP;
  if (single && !ips.includes(single)) ips.unshift(single);
  return ips;
}

/** The pod's IP of `family`, or undefined. */
export const podIpOf = (pod: Pod, family: AddressFamily): string | undefined => podIps(pod).find((ip) => familyOf(ip) === family);

/** Finished: the phase is Succeeded or Failed (its containers will not run again). */
export const isPodTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/**
 * Whether a pod is an endpoint of the Services selecting it at all (upstream's
 * ShouldPodBeInEndpoints): not finished, with an IP, and — unless `includeTerminating` — not being
 * deleted. Endpoints include terminating pods only for `publishNotReadyAddresses`; slices always
 * do, with the `terminating` condition.
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (isPodTerminal(pod)) return false;
  if (podIps(pod).length === 0) return false;
  return includeTerminating || pod.metadata.deletionTimestamp === undefined;
}

/**
 * The three conditions of a pod's endpoint (discovery/v1): `serving` is the pod's readiness,
 * `terminating` whether it is being deleted, and `ready` is serving and not terminating — or
 * always, for a Service that publishes not-ready addresses (so a client reading only `ready`
 * sees what that Service asks for).
 */
export function endpointConditions(pod: Pod, service: Service): { ready: boolean; serving: boolean; terminating: boolean } {
  const serving = isPodReady(pod);
  const terminating = pod.metadata.deletionTimestamp !== undefined;
  return { ready: service.spec?.publishNotReadyAddresses === true || (serving && !terminating), serving, terminating };
}

/**
 * The DNS hostname a pod's endpoint gets: its `spec.hostname` when its `spec.subdomain` names
 * this Service in its own namespace (the headless-Service record of a StatefulSet pod), else none.
 */
export function endpointHostname(pod: Pod, service: Service): string | undefined {
  const hostname = pod.spec?.hostname;
  if (!hostname) return undefined;
  return pod.spec?.subdomain === service.metadata.name && pod.metadata.namespace === service.metadata.namespace ? hostname : undefined;
}

/** An endpoint's reference to its pod (Endpoints and EndpointSlices write the same one). */
export type PodReference = NonNullable<EndpointSlice['endpoints'][number]['targetRef']>;

/** The reference an endpoint keeps to its pod. */
export function podReference(pod: Pod): PodReference {
  return { kind: 'Pod', namespace: pod.metadata.namespace!, name: pod.metadata.name!, uid: pod.metadata.uid! };
}
