import { quantityValue, type Container, type Pod } from '../../api/index.js';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const COMPUTE = ['cpu', 'memory'] as const;

/** A container's request of a resource; a limit alone stands for the request, as API defaulting does. */
export function requestOf(container: Container, resource: string): number | undefined {
  const requests = container.resources?.requests ?? {};
  const limits = container.resources?.limits ?? {};
  return quantityValue(requests[resource] ?? limits[resource]);
}

export const limitOf = (container: Container, resource: string): number | undefined => quantityValue(container.resources?.limits?.[resource]);

/**
 * The pod's QoS class as Kubernetes defines it: BestEffort when no container requests or limits
 * CPU or memory; Guaranteed when every container limits both and requests equal the limits;
 * Burstable otherwise. The API server records it at creation; the agent computes it for static
 * pods and to decide the containers' OOM score.
 */
export function qosClassOf(pod: Pod): QosClass {
  const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  let any = false;
  let guaranteed = true;
  for (const container of containers) {
    for (const resource of COMPUTE) {
      const request = requestOf(container, resource);
      const limit = limitOf(container, resource);
      if (request !== undefined || limit !== undefined) any = true;
      if (limit === undefined || request !== limit) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
