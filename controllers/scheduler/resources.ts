import { milliValue, type Pod } from '../../src/api/index.js';

/** Resource names (cpu, memory, ephemeral-storage, example.com/gpu, ...) to amounts in milli-units. */
export type ResourceAmounts = ReadonlyMap<string, number>;

export const CPU = 'cpu';
export const MEMORY = 'memory';
export const EPHEMERAL_STORAGE = 'ephemeral-storage';
export const PODS = 'pods';

/**
 * What kube-scheduler assumes a container without a request uses, for scoring only (never for
 * fitting): 100m cpu and 200 MiB memory. Without it a node full of request-less pods scores as empty.
 */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 2 ** 20 * 1000;

type Container = Pod['spec']['containers'][number];

function addTo(into: Map<string, number>, list: Readonly<Record<string, unknown>> | undefined): void {
  if (!list) return;
  for (const [name, quantity] of Object.entries(list)) into.set(name, (into.get(name) ?? 0) + milliValue(quantity));
}

function requestsOf(container: Container): Readonly<Record<string, unknown>> | undefined {
  return container.resources?.requests;
}

/**
 * A pod's effective requests, as Kubernetes computes them: the sum of its containers' requests;
 * raised, per resource, to what any init container needs while it runs (an init container runs
 * alone, beside the sidecars started before it); plus the sidecars (init containers with
 * `restartPolicy: Always`), which run for the pod's life; plus `spec.overhead`.
 */
export function podRequests(pod: Pod): Map<string, number> {
  const total = new Map<string, number>();
  for (const container of pod.spec.containers) addTo(total, requestsOf(container));
  const sidecars = new Map<string, number>();
  const initPeak = new Map<string, number>();
  for (const init of pod.spec.initContainers ?? []) {
    if (init.restartPolicy === 'Always') {
      addTo(sidecars, requestsOf(init));
      // A sidecar's own start needs what the sidecars so far need.
      for (const [name, amount] of sidecars) if (amount > (initPeak.get(name) ?? 0)) initPeak.set(name, amount);
      continue;
    }
    const running = new Map(sidecars);
    addTo(running, requestsOf(init));
    for (const [name, amount] of running) if (amount > (initPeak.get(name) ?? 0)) initPeak.set(name, amount);
  }
  for (const [name, amount] of sidecars) total.set(name, (total.get(name) ?? 0) + amount);
  for (const [name, amount] of initPeak) if (amount > (total.get(name) ?? 0)) total.set(name, amount);
  addTo(total, pod.spec.overhead);
  for (const [name, amount] of total) if (amount === 0) total.delete(name);
  return total;
}

/**
 * The cpu and memory a pod counts as for scoring: its requests, with the defaults above for a
 * container that requests none (kube-scheduler's "non-zero" requests).
 */
export function nonZeroRequests(pod: Pod): { cpu: number; memory: number } {
  let cpu = 0;
  let memory = 0;
  for (const container of pod.spec.containers) {
    const requests = requestsOf(container);
    cpu += requests?.[CPU] !== undefined ? milliValue(requests[CPU]) : DEFAULT_MILLI_CPU_REQUEST;
    memory += requests?.[MEMORY] !== undefined ? milliValue(requests[MEMORY]) : DEFAULT_MEMORY_REQUEST;
  }
  const overhead = pod.spec.overhead;
  if (overhead?.[CPU] !== undefined) cpu += milliValue(overhead[CPU]);
  if (overhead?.[MEMORY] !== undefined) memory += milliValue(overhead[MEMORY]);
  return { cpu, memory };
}

/** A node's allocatable resources (its capacity when it reports no allocatable). */
export function allocatableOf(status: { allocatable?: Record<string, unknown>; capacity?: Record<string, unknown> } | undefined): Map<string, number> {
  const amounts = new Map<string, number>();
  addTo(amounts, status?.allocatable ?? status?.capacity);
  return amounts;
}
