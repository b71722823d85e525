import { quantityValue, type Pod } from '../../api/index.js';

/**
 * The size of a memory-backed volume (a tmpfs), as the kubelet computes it: what the pod could use
 * at most — the node's allocatable memory, or the pod's memory limit when every container has one
 * and it is smaller — and the volume's `sizeLimit` when that is smaller still. Undefined (the
 * tmpfs default, half the RAM) when nothing bounds it.
 */
export function memoryVolumeSize(pod: Pod, nodeAllocatable: Readonly<Record<string, string>>, sizeLimit: unknown): number | undefined {
  let size = positive(quantityValue(nodeAllocatable['memory']));
  const podLimit = podMemoryLimit(pod);
  if (podLimit !== undefined && (size === undefined || podLimit <= size)) size = podLimit;
  const volumeLimit = sizeLimit === undefined ? undefined : positive(quantityValue(sizeLimit));
  if (volumeLimit !== undefined && (size === undefined || volumeLimit <= size)) size = volumeLimit;
  return size;
}

// The pod cgroup's limit: the containers' sum (or the largest init container, if larger) plus the
// pod overhead; none when a container has no limit.
function podMemoryLimit(pod: Pod): number | undefined {
  const limitOf = (c: { resources?: { limits?: Record<string, unknown> | undefined } | undefined }) => positive(quantityValue(c.resources?.limits?.['memory']));
  let sum = 0;
  for (const container of pod.spec.containers) {
    const limit = limitOf(container);
    if (limit === undefined) return undefined;
    sum += limit;
  }
  let initMax = 0;
  for (const container of pod.spec.initContainers ?? []) {
    const limit = limitOf(container);
    if (limit === undefined) return undefined;
    initMax = Math.max(initMax, limit);
  }
  return Math.max(sum, initMax) + (positive(quantityValue(pod.spec.overhead?.['memory'])) ?? 0);
}

const positive = (value: number | undefined) => (value !== undefined && value > 0 ? value : undefined);
