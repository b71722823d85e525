import type { Pod } from '../../src/api/index.js';
import { nodeAffinityOf, type PodNodeAffinity } from '../node-matching/index.js';
import { CPU, EPHEMERAL_STORAGE, MEMORY, nonZeroRequests, podRequests } from './resources.js';

/** A host port a pod asks for: `hostIP` 0.0.0.0 when it names none, protocol TCP by default. */
export interface HostPort {
  readonly ip: string;
  readonly protocol: string;
  readonly port: number;
}

/**
 * A pod with what scheduling reads of it computed once: its requests, its scoring requests and its
 * host ports. Made when the pod enters the queue or the cache and shared from then on (the pod is
 * a frozen informer object; nothing here is copied or changed).
 */
export interface PodInfo {
  /** `namespace/name`. */
  readonly key: string;
  readonly pod: Pod;
  readonly requests: ReadonlyMap<string, number>;
  /** The same requests as pairs, cpu, memory and ephemeral-storage first, then by name: the order shortages are reported in. */
  readonly requestList: readonly (readonly [string, number])[];
  readonly nonZero: { readonly cpu: number; readonly memory: number };
  readonly hostPorts: readonly HostPort[];
  readonly affinity: PodNodeAffinity;
}

export const WILDCARD_IP = '0.0.0.0';

export function hostPortsOf(pod: Pod): HostPort[] {
  const ports: HostPort[] = [];
  for (const container of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    for (const port of container.ports ?? []) {
      if (!port.hostPort) continue;
      ports.push({ ip: port.hostIP || WILDCARD_IP, protocol: port.protocol ?? 'TCP', port: port.hostPort });
    }
  }
  return ports;
}

export function podKey(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}

const FIRST = [CPU, MEMORY, EPHEMERAL_STORAGE];
const rank = (name: string): number => {
  const i = FIRST.indexOf(name);
  return i < 0 ? FIRST.length : i;
};

export function podInfo(pod: Pod): PodInfo {
  const requests = podRequests(pod);
  const requestList = [...requests].sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return { key: podKey(pod), pod, requests, requestList, nonZero: nonZeroRequests(pod), hostPorts: hostPortsOf(pod), affinity: nodeAffinityOf(pod) };
}
