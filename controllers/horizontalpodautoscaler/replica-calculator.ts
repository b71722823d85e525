/**
 * How many replicas a resource metric asks for: upstream's replica calculator for `Resource`
 * metrics, as a pure function of the pods, their samples and the clock. Values are integers in
 * milli-units (millicores, milli-bytes) so that sums stay exact.
 *
 * The rules, in the order they apply:
 * - pods being deleted and failed pods are ignored; pending pods count as unready;
 * - a pod without a sample is missing;
 * - for CPU, a pod is unready when it has no Ready condition or start time; within the CPU
 *   initialization period after start, also when it is not Ready or its sample's window began
 *   before its last readiness change; after that period, only when it is not Ready and never was
 *   (its Ready condition changed within the initial readiness delay of its start);
 * - no sample left from ready pods: an error (the metric is not usable);
 * - utilization is the ready pods' usage over their requests (a container without a request
 *   makes it an error); within the tolerance of the target nothing changes;
 * - when scaling up, unready pods are taken to use nothing; missing pods use nothing when scaling
 *   up and their full request (or the target, when it is above 100 %) when scaling down; if the
 *   recomputed ratio falls within the tolerance or turns the direction around, nothing changes.
 */

/** A pod as the calculator sees it. */
export interface PodSample {
  readonly name: string;
  /** `status.phase`. */
  readonly phase: string | undefined;
  readonly deleting: boolean;
  /** `status.startTime` (ms), if set. */
  readonly startTimeMs: number | undefined;
  /** The Ready condition, if the pod has one. */
  readonly ready: { readonly status: boolean; readonly lastTransitionMs: number } | undefined;
  /** The summed request of the metric's resource over the pod's containers; undefined when a container has none. */
  readonly requestMilli: number | undefined;
  /** The first container without a request, for the error message. */
  readonly containerWithoutRequest?: string | undefined;
}

/** One pod's usage sample from the metrics API. */
export interface MetricSample {
  readonly valueMilli: number;
  readonly timestampMs: number;
  readonly windowMs: number;
}

export interface CalculatorSettings {
  /** `--horizontal-pod-autoscaler-tolerance`. */
  readonly tolerance: number;
  /** `--horizontal-pod-autoscaler-cpu-initialization-period` (ms). */
  readonly cpuInitializationPeriodMs: number;
  /** `--horizontal-pod-autoscaler-initial-readiness-delay` (ms). */
  readonly initialReadinessDelayMs: number;
}

export type ResourceTarget =
  | { readonly type: 'Utilization'; readonly averageUtilization: number }
  | { readonly type: 'AverageValue'; readonly averageValueMilli: number };

export interface ResourceReplicasInput {
  readonly currentReplicas: number;
  /** `cpu`, `memory`, ... (CPU samples get the initialization rules). */
  readonly resource: string;
  readonly target: ResourceTarget;
  readonly pods: readonly PodSample[];
  /** Samples by pod name. */
  readonly samples: ReadonlyMap<string, MetricSample>;
  readonly nowMs: number;
}

export interface ResourceReplicas {
  readonly replicas: number;
  /** The ready pods' average utilization (percent of request), for Utilization targets. */
  readonly averageUtilization?: number | undefined;
  /** The ready pods' average usage (milli-units). */
  readonly averageValueMilli: number;
  /** The oldest sample's time. */
  readonly timestampMs: number;
}

/** Why no replica count came from a metric (becomes ScalingActive False). */
export class MetricUnavailableError extends Error {}

interface Grouped {
  readonly readyCount: number;
  readonly unready: ReadonlySet<string>;
  readonly missing: ReadonlySet<string>;
  readonly ignored: ReadonlySet<string>;
}

function groupPods(input: ResourceReplicasInput, settings: CalculatorSettings): Grouped {
  let readyCount = 0;
  const unready = new Set<string>();
  const missing = new Set<string>();
  const ignored = new Set<string>();
  for (const pod of input.pods) {
    if (pod.deleting || pod.phase === 'Failed') {
      ignored.add(pod.name);
      continue;
    }
    if (pod.phase === 'Pending') {
      unready.add(pod.name);
      continue;
    }
    const sample = input.samples.get(pod.name);
    if (!sample) {
      missing.add(pod.name);
      continue;
    }
    if (input.resource === 'cpu') {
      let isUnready: boolean;
      if (!pod.ready || pod.startTimeMs === undefined) isUnready = true;
      else if (pod.startTimeMs + settings.cpuInitializationPeriodMs > input.nowMs) {
        // Still starting: a sample counts only from a ready pod, over a window after it became ready.
        isUnready = !pod.ready.status || sample.timestampMs < pod.ready.lastTransitionMs + sample.windowMs;
      } else {
        // Started long ago: only a pod that never became ready is left out.
        isUnready = !pod.ready.status && pod.startTimeMs + settings.initialReadinessDelayMs > pod.ready.lastTransitionMs;
      }
      if (isUnready) {
        unready.add(pod.name);
        continue;
      }
    }
    readyCount++;
  }
  return { readyCount, unready, missing, ignored };
}

/** Usage over request of the sampled pods (upstream's GetResourceUtilizationRatio). */
function utilizationRatio(samples: ReadonlyMap<string, number>, requests: ReadonlyMap<string, number>, targetUtilization: number) {
  let usage = 0;
  let requested = 0;
  for (const [name, value] of samples) {
    const request = requests.get(name);
    if (request === undefined) continue;
    usage += value;
    requested += request;
  }
  if (requested === 0) throw new MetricUnavailableError('no metrics returned matched known pods');
  const utilization = Math.trunc((usage * 100) / requested);
  return { ratio: utilization / targetUtilization, utilization, average: Math.trunc(usage / samples.size) };
}

/** The replica count one Resource metric asks for. Throws MetricUnavailableError when it cannot tell. */
export function resourceReplicas(input: ResourceReplicasInput, settings: CalculatorSettings): ResourceReplicas {
  if (input.pods.length === 0) throw new MetricUnavailableError('no pods returned by selector while calculating replica count');
  const groups = groupPods(input, settings);
  const usable = new Map<string, number>();
  let timestampMs = Number.POSITIVE_INFINITY;
  for (const [name, sample] of input.samples) {
    if (groups.ignored.has(name) || groups.unready.has(name)) continue;
    if (!input.pods.some((pod) => pod.name === name)) continue;
    usable.set(name, sample.valueMilli);
    timestampMs = Math.min(timestampMs, sample.timestampMs);
  }
  if (usable.size === 0) throw new MetricUnavailableError('did not receive metrics for targeted pods (pods might be unready)');
  if (!Number.isFinite(timestampMs)) timestampMs = input.nowMs;

  const { target } = input;
  const requests = new Map<string, number>();
  if (target.type === 'Utilization') {
    for (const pod of input.pods) {
      if (pod.requestMilli === undefined) {
        throw new MetricUnavailableError(`missing request for ${input.resource} in container ${pod.containerWithoutRequest ?? ''} of Pod ${pod.name}`);
      }
      requests.set(pod.name, pod.requestMilli);
    }
  }
  // One ratio function for both target types: usage over request, or average over the target value.
  const measure = (samples: ReadonlyMap<string, number>) => {
    if (target.type === 'Utilization') return utilizationRatio(samples, requests, target.averageUtilization);
    let total = 0;
    for (const value of samples.values()) total += value;
    const average = total / samples.size;
    return { ratio: average / target.averageValueMilli, utilization: undefined, average: Math.trunc(average) };
  };
  const first = measure(usable);
  const result = (replicas: number): ResourceReplicas => ({ replicas, averageUtilization: first.utilization, averageValueMilli: first.average, timestampMs });

  const scaleUpWithUnready = groups.unready.size > 0 && first.ratio > 1;
  const withinTolerance = (ratio: number) => Math.abs(1 - ratio) <= settings.tolerance;
  if (!scaleUpWithUnready && groups.missing.size === 0) {
    if (withinTolerance(first.ratio)) return result(input.currentReplicas);
    return result(Math.ceil(first.ratio * groups.readyCount));
  }

  // Fill in the pods without a usable sample the way that moves the answer least.
  const filled = new Map(usable);
  if (groups.missing.size > 0) {
    for (const name of groups.missing) {
      if (first.ratio < 1) {
        filled.set(
          name,
          target.type === 'Utilization' ? Math.trunc(((requests.get(name) ?? 0) * Math.max(100, target.averageUtilization)) / 100) : target.averageValueMilli,
        );
      } else if (first.ratio > 1) filled.set(name, 0);
    }
  }
  if (scaleUpWithUnready) for (const name of groups.unready) filled.set(name, 0);
  const second = measure(filled);
  if (withinTolerance(second.ratio) || (first.ratio < 1 && second.ratio > 1) || (first.ratio > 1 && second.ratio < 1)) return result(input.currentReplicas);
  const replicas = Math.ceil(second.ratio * filled.size);
  // A recomputation that points the other way than the ratio does keeps the current count.
  if ((second.ratio < 1 && replicas > input.currentReplicas) || (second.ratio > 1 && replicas < input.currentReplicas)) return result(input.currentReplicas);
  return result(replicas);
}
