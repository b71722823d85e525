import { filter, type Observable, type SchedulerLike } from 'rxjs';
import {
  canonicalJson,
  formatMilliQuantity,
  matchesLabels,
  milliQuantity,
  parseLabelSelector,
  rfc3339,
  type HorizontalPodAutoscaler,
  type Pod,
} from '../../src/api/index.js';
import { builtin, resource, type Client, type DiscoveryCache, type EventSink, type InvolvedObject, type Scale } from '../../src/client/index.js';
import { generationChanged, requeueAfter, type Outcome } from '../../operators/index.js';
import { cacheOnly } from '../cache-only.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { HpaConditions } from './hpa-conditions.js';
import { MetricUnavailableError, resourceReplicas, type CalculatorSettings, type MetricSample, type PodSample, type ResourceTarget } from './replica-calculator.js';
import { normalizeWithBehavior, normalizeWithoutBehavior, recordScaleEvent, resolveBehavior, ScaleHistory, type BehaviorSpec } from './scale-behavior.js';
import { resolveScaleTarget, ScaleTargetError } from './scale-target.js';

export interface HorizontalPodAutoscalerOptions {
  /** `--concurrent-horizontal-pod-autoscaler-syncs` (5). */
  readonly concurrency?: number | undefined;
  /** `--horizontal-pod-autoscaler-sync-period` (15 s): each autoscaler is looked at this often. */
  readonly syncPeriodMs?: number | undefined;
  /** `--horizontal-pod-autoscaler-tolerance` (0.1). */
  readonly tolerance?: number | undefined;
  /** `--horizontal-pod-autoscaler-downscale-stabilization` (5 min). */
  readonly downscaleStabilizationMs?: number | undefined;
  /** `--horizontal-pod-autoscaler-cpu-initialization-period` (5 min). */
  readonly cpuInitializationPeriodMs?: number | undefined;
  /** `--horizontal-pod-autoscaler-initial-readiness-delay` (30 s). */
  readonly initialReadinessDelayMs?: number | undefined;
  /** The clock (ms); tests pass a virtual one with `scheduler`. */
  readonly now?: () => number;
  readonly scheduler?: SchedulerLike;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `horizontalpodautoscaling`).
const NAME = 'horizontal-pod-autoscaler-controller';

/** The resource metrics API, under its upstream name, as upstream's metrics client reads it. */
const podMetrics = resource({ group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods', namespaced: true, kind: 'PodMetrics' });

type Status = NonNullable<HorizontalPodAutoscaler['status']>;
type MetricSpec = NonNullable<HorizontalPodAutoscaler['spec']['metrics']>[number];

/**
 * The horizontal pod autoscaler (autoscaling/v2): every sync period, for each autoscaler, the
 * target's scale (its `scale` subresource), the pods its selector picks and their usage from the
 * resource metrics API; the replica count each Resource/ContainerResource metric asks for (the
 * highest wins), stabilized and rate limited by `behavior`, written through the scale
 * subresource; status and the AbleToScale, ScalingActive and ScalingLimited conditions say what
 * happened. docs/controller-manager.md#horizontal-pod-autoscaler-controller.
 */
export function horizontalPodAutoscalerController(ctx: ControllerContext, options: HorizontalPodAutoscalerOptions = {}): Observable<ControllerResult<unknown>> {
  const hpas = ctx.informers.informer(builtin.horizontalPodAutoscalers);
  const pods = ctx.informers.informer(builtin.pods);
  const now = options.now ?? Date.now;
  const syncPeriodMs = options.syncPeriodMs ?? 15_000;
  const settings: Settings = {
    tolerance: options.tolerance ?? 0.1,
    cpuInitializationPeriodMs: options.cpuInitializationPeriodMs ?? 5 * 60_000,
    initialReadinessDelayMs: options.initialReadinessDelayMs ?? 30_000,
    downscaleStabilizationMs: options.downscaleStabilizationMs ?? 5 * 60_000,
  };
  const histories = new Map<string, ScaleHistory>();
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    // A status write of our own is no reason to look again before the sync period.
    for: { events$: hpas.events$.pipe(filter((e) => e.type !== 'resync'), generationChanged()), synced$: hpas.synced$ },
    watches: [cacheOnly(pods)],
    concurrency: options.concurrency ?? 5,
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    stop$: ctx.stop$,
    reconcile: async (key): Promise<Outcome<unknown> | void> => {
      const hpa = hpas.store.get(key);
      if (!hpa) {
        histories.delete(key);
        return;
      }
      let history = histories.get(key);
      if (!history) histories.set(key, (history = new ScaleHistory()));
      const namespacePods = pods.store.byIndex('namespace', hpa.metadata.namespace!);
      await syncAutoscaler({ client: ctx.client, events: ctx.events, discovery: ctx.discovery, settings, history, nowMs: now() }, hpa, namespacePods);
      return requeueAfter(syncPeriodMs);
    },
  });
}

interface Settings extends CalculatorSettings {
  readonly downscaleStabilizationMs: number;
}

interface SyncContext {
  readonly client: Client;
  readonly events: EventSink;
  readonly discovery: DiscoveryCache;
  readonly settings: Settings;
  readonly history: ScaleHistory;
  readonly nowMs: number;
}

const involved = (hpa: HorizontalPodAutoscaler): InvolvedObject => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  name: hpa.metadata.name!,
  namespace: hpa.metadata.namespace,
  uid: hpa.metadata.uid,
  resourceVersion: hpa.metadata.resourceVersion,
});

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** One autoscaler, once (upstream's reconcileAutoscaler). */
async function syncAutoscaler(sc: SyncContext, hpa: HorizontalPodAutoscaler, namespacePods: readonly Pod[]): Promise<void> {
  const { spec } = hpa;
  const conditions = new HpaConditions(hpa.status?.conditions, sc.nowMs);
  const namespace = hpa.metadata.namespace!;
  const ref = spec.scaleTargetRef;
  const base: Status = { ...hpa.status, observedGeneration: hpa.metadata.generation, desiredReplicas: hpa.status?.desiredReplicas ?? 0 };

  let scale: Scale;
  let target;
  try {
    target = await resolveScaleTarget(sc.discovery, ref.apiVersion, ref.kind);
    scale = await sc.client.getScale(target.resource, ref.name, { namespace });
  } catch (error) {
    const message = error instanceof ScaleTargetError ? error.message : messageOf(error);
    conditions.set('AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${message}`);
    sc.events.record(involved(hpa), 'Warning', 'FailedGetScale', message);
    await writeStatus(sc.client, hpa, { ...base, conditions: conditions.list });
    return;
  }
  conditions.set('AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale");
  const currentReplicas = scale.spec?.replicas ?? 0;
  const minReplicas = spec.minReplicas ?? 1;
  let desiredReplicas = 0;
  let rescaleReason = '';
  let currentMetrics: Json[] | undefined = hpa.status?.currentMetrics;

  if (currentReplicas === 0 && minReplicas !== 0) {
    // Scaled to zero by someone else: autoscaling waits for it to come back.
    conditions.set('ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
  } else if (currentReplicas > spec.maxReplicas) {
    rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
    desiredReplicas = spec.maxReplicas;
  } else if (currentReplicas < minReplicas) {
    rescaleReason = 'Current number of replicas below Spec.MinReplicas';
    desiredReplicas = minReplicas;
  } else {
    const computed = await computeReplicas(sc, hpa, scale, currentReplicas, namespacePods, conditions);
    currentMetrics = computed.statuses;
    if (computed.replicas === undefined) {
      sc.events.record(involved(hpa), 'Warning', 'FailedComputeMetricsReplicas', computed.error ?? 'no metric could be computed');
      await writeStatus(sc.client, hpa, { ...base, currentReplicas, currentMetrics, conditions: conditions.list });
      return;
    }
    desiredReplicas = computed.replicas;
    if (desiredReplicas > currentReplicas) rescaleReason = `${computed.metricName} above target`;
    if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
    const input = { currentReplicas, desiredReplicas, minReplicas, maxReplicas: spec.maxReplicas, nowMs: sc.nowMs };
    const normalized = spec.behavior
      ? normalizeWithBehavior(sc.history, input, resolveBehavior(spec.behavior as BehaviorSpec, sc.settings.downscaleStabilizationMs))
      : normalizeWithoutBehavior(sc.history, input, sc.settings.downscaleStabilizationMs);
    desiredReplicas = normalized.replicas;
    conditions.set('AbleToScale', normalized.ableToScale.status, normalized.ableToScale.reason, normalized.ableToScale.message);
    conditions.set('ScalingLimited', normalized.scalingLimited.status, normalized.scalingLimited.reason, normalized.scalingLimited.message);
  }

  const rescale = desiredReplicas !== currentReplicas && !(currentReplicas === 0 && minReplicas !== 0);
  let lastScaleTime = hpa.status?.lastScaleTime;
  if (rescale) {
    try {
      await sc.client.patchScale(target.resource, ref.name, { spec: { replicas: desiredReplicas } }, { namespace, type: 'merge' });
    } catch (error) {
      const message = messageOf(error);
      conditions.set('AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${message}`);
      sc.events.record(involved(hpa), 'Warning', 'FailedRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${message}`);
      await writeStatus(sc.client, hpa, { ...base, currentReplicas, currentMetrics, conditions: conditions.list });
      throw error;
    }
    conditions.set('AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desiredReplicas}`);
    sc.events.record(involved(hpa), 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}`);
    if (spec.behavior) recordScaleEvent(sc.history, resolveBehavior(spec.behavior as BehaviorSpec, sc.settings.downscaleStabilizationMs), currentReplicas, desiredReplicas, sc.nowMs);
    lastScaleTime = rfc3339(sc.nowMs);
  } else desiredReplicas = currentReplicas === 0 && minReplicas !== 0 ? 0 : currentReplicas;

  await writeStatus(sc.client, hpa, {
    ...base,
    currentReplicas,
    desiredReplicas,
    ...(currentMetrics ? { currentMetrics } : {}),
    ...(lastScaleTime ? { lastScaleTime } : {}),
    conditions: conditions.list,
  });
}

interface Computed {
  readonly replicas: number | undefined;
  readonly metricName: string;
  readonly statuses: Json[];
  readonly error?: string;
}

/** Every metric's proposal, the highest kept (upstream's computeReplicasForMetrics). */
async function computeReplicas(sc: SyncContext, hpa: HorizontalPodAutoscaler, scale: Scale, currentReplicas: number, namespacePods: readonly Pod[], conditions: HpaConditions): Promise<Computed> {
  const metrics = hpa.spec.metrics ?? [];
  const selectorText = scale.status?.selector;
  if (!selectorText) {
    const message = 'the HPA target\'s scale is missing a selector';
    conditions.set('ScalingActive', 'False', 'InvalidSelector', message);
    return { replicas: undefined, metricName: '', statuses: [], error: message };
  }
  let selector;
  try {
    selector = parseLabelSelector(selectorText);
  } catch (error) {
    const message = `couldn't convert selector into a corresponding internal selector object: ${messageOf(error)}`;
    conditions.set('ScalingActive', 'False', 'InvalidSelector', message);
    return { replicas: undefined, metricName: '', statuses: [], error: message };
  }
  const selected = namespacePods.filter((pod) => matchesLabels(selector, pod.metadata.labels ?? {}));

  let samples: Map<string, PodMetricsSample> | undefined;
  const samplesOnce = async () => (samples ??= await readPodMetrics(sc.client, hpa.metadata.namespace!, selectorText));

  let best: number | undefined;
  let bestName = '';
  let firstError: string | undefined;
  let invalid = 0;
  let lastFailure: { reason: string; message: string } | undefined;
  const statuses: Json[] = [];
  for (const metric of metrics) {
    try {
      const proposal = await resourceMetricReplicas(sc, metric, currentReplicas, selected, samplesOnce);
      statuses.push(proposal.status);
      if (best === undefined || proposal.replicas > best) {
        best = proposal.replicas;
        bestName = proposal.name;
      }
    } catch (error) {
      invalid++;
      const reason = `FailedGet${metric.type}Metric`;
      const message = messageOf(error);
      firstError ??= message;
      lastFailure = { reason, message: `the HPA was unable to compute the replica count: ${message}` };
      sc.events.record(involved(hpa), 'Warning', reason, message);
      statuses.push({ type: '' });
    }
  }
  if (best === undefined || invalid === metrics.length) {
    const message = `invalid metrics (${invalid} invalid out of ${metrics.length}), first error is: ${firstError ?? 'no metrics'}`;
    conditions.set('ScalingActive', 'False', lastFailure?.reason ?? 'FailedGetResourceMetric', lastFailure?.message ?? message);
    return { replicas: undefined, metricName: '', statuses, error: message };
  }
  // Some metrics unknown: never scale down on the others alone (upstream's rule since 1.21).
  if (invalid > 0 && best < currentReplicas) best = currentReplicas;
  conditions.set('ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${bestName}`);
  return { replicas: best, metricName: bestName, statuses };
}

interface PodMetricsSample {
  /** By container name: usage in milli-units by resource name. */
  readonly containers: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly timestampMs: number;
  readonly windowMs: number;
}

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The pods' usage from the resource metrics API (metrics.k8s.io PodMetrics), by pod name. */
async function readPodMetrics(client: Client, namespace: string, labelSelector: string): Promise<Map<string, PodMetricsSample>> {
  let page;
  try {
    page = await client.list(podMetrics, { namespace, labelSelector });
  } catch (error) {
    throw new MetricUnavailableError(`unable to get metrics for resource from the resource metrics API: ${messageOf(error)}`);
  }
  const out = new Map<string, PodMetricsSample>();
  for (const item of page.items as unknown as Json[]) {
    const name = isRecord(item['metadata']) ? item['metadata']['name'] : undefined;
    if (typeof name !== 'string') continue;
    const containers = new Map<string, Map<string, number>>();
    for (const c of Array.isArray(item['containers']) ? item['containers'] : []) {
      if (!isRecord(c) || typeof c['name'] !== 'string' || !isRecord(c['usage'])) continue;
      const usage = new Map<string, number>();
      for (const [res, q] of Object.entries(c['usage'])) {
        const milli = milliQuantity(q);
        if (milli !== undefined) usage.set(res, milli);
      }
      containers.set(c['name'], usage);
    }
    const timestampMs = typeof item['timestamp'] === 'string' ? Date.parse(item['timestamp']) : Number.NaN;
    const windowMs = typeof item['window'] === 'string' ? parseGoSeconds(item['window']) : 0;
    out.set(name, { containers, timestampMs: Number.isFinite(timestampMs) ? timestampMs : 0, windowMs });
  }
  return out;
}

/** `15.012s`, `1m0s` → ms (the forms metav1.Duration writes). */
function parseGoSeconds(text: string): number {
  let ms = 0;
  for (const [, value, unit] of text.matchAll(/([\d.]+)(h|m|s|ms)/g)) ms += Number(value) * ({ h: 3_600_000, m: 60_000, s: 1000, ms: 1 }[unit as 'h' | 'm' | 's' | 'ms']);
  return ms;
}

interface Proposal {
  readonly replicas: number;
  readonly name: string;
  readonly status: Json;
}

/** One Resource or ContainerResource metric's proposal; other types are not served (no custom or external metrics API). */
async function resourceMetricReplicas(
  sc: SyncContext,
  metric: MetricSpec,
  currentReplicas: number,
  selected: readonly Pod[],
  samplesOnce: () => Promise<Map<string, PodMetricsSample>>,
): Promise<Proposal> {
  if (metric.type !== 'Resource' && metric.type !== 'ContainerResource') {
    throw new MetricUnavailableError(`${metric.type} metrics need the custom or external metrics API, which svc does not serve: only Resource and ContainerResource metrics are computed`);
  }
  const source = (metric.type === 'Resource' ? metric.resource : metric.containerResource) as Json | undefined;
  const resourceName = typeof source?.['name'] === 'string' ? source['name'] : '';
  const container = metric.type === 'ContainerResource' && typeof source?.['container'] === 'string' ? source['container'] : undefined;
  const targetSpec = isRecord(source?.['target']) ? source['target'] : {};
  let target: ResourceTarget;
  if (targetSpec['type'] === 'Utilization' && typeof targetSpec['averageUtilization'] === 'number') target = { type: 'Utilization', averageUtilization: targetSpec['averageUtilization'] };
  else if (targetSpec['type'] === 'AverageValue' && milliQuantity(targetSpec['averageValue']) !== undefined) target = { type: 'AverageValue', averageValueMilli: milliQuantity(targetSpec['averageValue'])! };
  else throw new MetricUnavailableError(`invalid resource metric source: neither a utilization target nor a value target was set`);

  const samples = await samplesOnce();
  const podSamples: PodSample[] = selected.map((pod) => podSample(pod, resourceName, container));
  const metricSamples = new Map<string, MetricSample>();
  for (const [name, sample] of samples) {
    let total = 0;
    let found = false;
    for (const [containerName, usage] of sample.containers) {
      if (container !== undefined && containerName !== container) continue;
      const value = usage.get(resourceName);
      if (value !== undefined) {
        total += value;
        found = true;
      }
    }
    if (found) metricSamples.set(name, { valueMilli: total, timestampMs: sample.timestampMs, windowMs: sample.windowMs });
  }
  const result = resourceReplicas({ currentReplicas, resource: resourceName, target, pods: podSamples, samples: metricSamples, nowMs: sc.nowMs }, sc.settings);
  const current = {
    averageValue: formatMilliQuantity(result.averageValueMilli),
    ...(result.averageUtilization !== undefined ? { averageUtilization: result.averageUtilization } : {}),
  };
  const status =
    metric.type === 'Resource' ? { type: 'Resource', resource: { name: resourceName, current } } : { type: 'ContainerResource', containerResource: { name: resourceName, container, current } };
  const what = target.type === 'Utilization' ? `${resourceName} resource utilization (percentage of request)` : `${resourceName} resource`;
  return { replicas: result.replicas, name: container ? `${what} of container ${container}` : what, status };
}

function podSample(pod: Pod, resourceName: string, container: string | undefined): PodSample {
  const status = (pod.status ?? {}) as { phase?: string; startTime?: string; conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  const start = status.startTime ? Date.parse(status.startTime) : Number.NaN;
  let requestMilli: number | undefined = 0;
  let containerWithoutRequest: string | undefined;
  for (const c of pod.spec?.containers ?? []) {
    if (container !== undefined && c.name !== container) continue;
    const request = milliQuantity((c.resources?.requests as Record<string, unknown> | undefined)?.[resourceName]);
    if (request === undefined) {
      requestMilli = undefined;
      containerWithoutRequest = c.name;
      break;
    }
    requestMilli += request;
  }
  return {
    name: pod.metadata.name!,
    phase: status.phase,
    deleting: pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null,
    startTimeMs: Number.isFinite(start) ? start : undefined,
    ready: ready ? { status: ready.status === 'True', lastTransitionMs: ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : 0 } : undefined,
    requestMilli,
    containerWithoutRequest,
  };
}

// Key order differs between what the loop builds and what the informer decoded: compare canonically.
const comparable = (status: Status | undefined) => canonicalJson(status ?? {});

/** Writes the status when it changed; a conflict throws (the back-off retries with the fresh object). */
async function writeStatus(client: Client, hpa: HorizontalPodAutoscaler, status: Status): Promise<void> {
  if (comparable(status) === comparable(hpa.status)) return;
  await client.updateStatus(builtin.horizontalPodAutoscalers, { ...hpa, status });
}
