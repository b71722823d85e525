/**
 * A pod's QoS class, which Kubernetes records in `status.qosClass` when the pod is created:
 * - BestEffort: no container requests or limits CPU or memory;
 * - Guaranteed: every container limits both, and requests (defaulting to the limits) equal them;
 * - Burstable: anything else.
 */

type QosClass = 'BestEffort' | 'Burstable' | 'Guaranteed';

const RESOURCES = ['cpu', 'memory'] as const;

const SUFFIX: Readonly<Record<string, number>> = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** A resource quantity as a number (`500m` → 0.5, `1Gi` → 2^30); NaN when it is not one. */
export function quantityValue(quantity: unknown): number {
  if (typeof quantity === 'number') return quantity;
  if (typeof quantity !== 'string') return Number.NaN;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)([a-zA-Z]*)$/.exec(quantity.trim());
  const scale = match ? SUFFIX[match[2]!] : undefined;
  return match && scale !== undefined ? Number(match[1]) * scale : Number.NaN;
}

type ResourceMap = Readonly<Record<string, unknown>> | undefined;
interface ContainerResources {
  readonly resources?: { readonly requests?: ResourceMap; readonly limits?: ResourceMap };
}

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
      if (limit === undefined || quantityValue(request) !== quantityValue(limit)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
