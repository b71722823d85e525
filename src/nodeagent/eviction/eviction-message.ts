import { formatMilliQuantity, quantityValue, type Pod } from '../../api/index.js';
import type { SignalObservation } from './eviction-state.js';
import { amountOf, type EvictionThreshold } from './eviction-thresholds.js';
import { RESOURCE_OF, type PodUsage } from './pod-ranking.js';

/** Bytes as a canonical binary quantity (`1Gi`, `524289Ki`); counts (pids, inodes) as plain numbers. */
const show = (resource: string, amount: number): string => {
  const whole = Math.max(0, Math.floor(amount));
  return resource === 'memory' || resource === 'ephemeral-storage' ? formatMilliQuantity(whole * 1000) : String(whole);
};

/**
 * The status message of an evicted pod, in upstream's wording (tools match on it): "The node was
 * low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. " and, for memory and
 * ephemeral storage, the pod's usage against its request.
 */
export function evictionMessage(threshold: EvictionThreshold, observation: SignalObservation, pod: Pod, usage: PodUsage): string {
  const resource = RESOURCE_OF[threshold.signal];
  let message = `The node was low on resource: ${resource}. Threshold quantity: ${show(resource, amountOf(threshold.value, observation.capacity))}, available: ${show(resource, observation.available)}. `;
  if (resource !== 'memory' && resource !== 'ephemeral-storage') return message;
  for (const container of usage.containers ?? []) {
    const used = resource === 'memory' ? container.memoryBytes : container.diskBytes;
    const spec = pod.spec.containers.find((c) => c.name === container.name);
    const request = quantityValue(spec?.resources?.requests?.[resource]) ?? 0;
    // Upstream names only the containers that use more than they asked for.
    if (used !== undefined && used > request) {
      message += `Container ${container.name} was using ${show(resource, used)}, request is ${show(resource, request)}, has larger consumption of ${resource}. `;
    }
  }
  return message;
}
