/**
 * A pod's QoS class, which Kubernetes records in `status.qosClass` when the pod is created:
 * - BestEffort: no container requests or limits CPU or memory;
 * - Guaranteed: every container limits both, and requests (defaulting to the limits) equal them;
 * - Burstable: anything else.
 * The API server records it at creation; the node agent computes it for static pods and to set the
 * containers' OOM score. It reads the spec as it came (the API server calls it before validation
 * is done with the object), so a quantity that is not one makes a pod Burstable, never an error.
 */

import { quantityValue } from '../browser-safe/index.js';

export type QosClass = 'BestEffort' | 'Burstable' | 'Guaranteed';

const RESOURCES = ['cpu', 'memory'] as const;

/** A resource quantity as a number (`500m` → 0.5, `1Gi` → 2^30); NaN when it is not one. */
const quantityOf = (quantity: unknown): number => quantityValue(quantity) ?? Number.NaN;

type ResourceMap = Readonly<Record<string, unknown>> | undefined;
interface ContainerResources {
  readonly resources?: { readonly requests?: ResourceMap; readonly limits?: ResourceMap };
}

/** `spec` is a pod's spec (`pod.spec`). */
export function podQosClass(spec: unknown): QosClass {
  const s = (spec ?? {}) as { containers?: ContainerResources[]; initContainers?: ContainerResources[] };
  const containers = [...(s.containers ?? []), ...(s.initContainers ?? [])];
  let any = false;
  let guaranteed = containers.length > 0;
  for (const container of containers) {
    const requests = container.resources?.requests ?? {};
    const limits = container.resources?.limits ?? {};
    for (const name of RESOURCES) {
      const limit = limits[name];
      const request = requests[name] ?? limit;
      if (request !== undefined || limit !== undefined) any = true;
      if (limit === undefined || quantityOf(request) !== quantityOf(limit)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
