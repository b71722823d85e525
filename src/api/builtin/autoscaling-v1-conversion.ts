import type { KubeObject } from '../meta.js';

/**
 * autoscaling/v1 HorizontalPodAutoscalers to and from autoscaling/v2, the version they are stored
 * in, as upstream's conversion (pkg/apis/autoscaling/v1/conversion.go) does:
 *
 * - v1's `targetCPUUtilizationPercentage` is v2's Resource `cpu` metric with a Utilization target;
 *   `currentCPUUtilizationPercentage` its current utilization.
 * - What v1 cannot say travels in annotations, in v1's older metric shape (`targetAverageValue`,
 *   `metricName`, ...): the other metrics (`autoscaling.alpha.kubernetes.io/metrics`), the current
 *   metrics (`…/current-metrics`), the conditions (`…/conditions`) and the behavior (`…/behavior`).
 *   Reading in v1 writes them; writing in v1 reads them back into v2 and drops them, so a v1
 *   client's get-and-put keeps every v2 field. An annotation that does not parse is ignored.
 * - A v1 object without any metric gets upstream's default, 80 % CPU.
 */

type Json = Record<string, unknown>;

export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP_ANNOTATIONS = [METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION, CONDITIONS_ANNOTATION, BEHAVIOR_ANNOTATION];
/** Upstream's DefaultCPUUtilization. */
export const DEFAULT_CPU_UTILIZATION = 80;

const isRecord = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const record = (value: unknown): Json => (isRecord(value) ? value : {});
/** Only the keys whose value is defined (so a converted object has no `"x": undefined`). */
const defined = (object: Json): Json => Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
/** The metadata with these annotations, or without the field when there are none. */
function withAnnotations(metadata: KubeObject['metadata'], annotations: Record<string, string>): KubeObject['metadata'] {
  const { annotations: _old, ...rest } = metadata;
  return Object.keys(annotations).length > 0 ? { ...rest, annotations } : rest;
}

const parseJson = (text: string | undefined): unknown => {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

// ── metric specs ──────────────────────────────────────────────────────────────

/** A v2 MetricSpec in v1's annotation shape. */
function metricSpecToV1(metric: Json): Json {
  const type = metric['type'];
  const out: Json = { type };
  const source = (key: string) => record(metric[key]);
  const target = (key: string) => record(source(key)['target']);
  const id = (key: string) => record(source(key)['metric']);
  switch (type) {
    case 'Resource':
      out['resource'] = defined({ name: source('resource')['name'], targetAverageUtilization: target('resource')['averageUtilization'], targetAverageValue: target('resource')['averageValue'] });
      break;
    case 'ContainerResource':
      out['containerResource'] = defined({
        name: source('containerResource')['name'],
        targetAverageUtilization: target('containerResource')['averageUtilization'],
        targetAverageValue: target('containerResource')['averageValue'],
        container: source('containerResource')['container'],
      });
      break;
    case 'Pods':
      out['pods'] = defined({ metricName: id('pods')['name'], targetAverageValue: target('pods')['averageValue'], selector: id('pods')['selector'] });
      break;
    case 'Object':
      out['object'] = defined({
        target: source('object')['describedObject'],
        metricName: id('object')['name'],
        targetValue: target('object')['value'],
        selector: id('object')['selector'],
        averageValue: target('object')['averageValue'],
      });
      break;
    case 'External':
      out['external'] = defined({ metricName: id('external')['name'], metricSelector: id('external')['selector'], targetValue: target('external')['value'], targetAverageValue: target('external')['averageValue'] });
      break;
  }
  return out;
}

/** v1's annotation shape back to a v2 MetricSpec. */
function metricSpecFromV1(metric: Json): Json {
  const type = metric['type'];
  const out: Json = { type };
  const source = (key: string) => record(metric[key]);
  const averageTarget = (s: Json) =>
    s['targetAverageUtilization'] !== undefined ? { type: 'Utilization', averageUtilization: s['targetAverageUtilization'] } : { type: 'AverageValue', averageValue: s['targetAverageValue'] };
  const valueTarget = (value: unknown, averageValue: unknown) => (value !== undefined ? { type: 'Value', value } : { type: 'AverageValue', averageValue });
  switch (type) {
    case 'Resource': {
      const s = source('resource');
      out['resource'] = { name: s['name'], target: defined(averageTarget(s)) };
      break;
    }
    case 'ContainerResource': {
      const s = source('containerResource');
      out['containerResource'] = defined({ name: s['name'], container: s['container'], target: defined(averageTarget(s)) });
      break;
    }
    case 'Pods': {
      const s = source('pods');
      out['pods'] = { metric: defined({ name: s['metricName'], selector: s['selector'] }), target: defined({ type: 'AverageValue', averageValue: s['targetAverageValue'] }) };
      break;
    }
    case 'Object': {
      const s = source('object');
      out['object'] = defined({ describedObject: s['target'], metric: defined({ name: s['metricName'], selector: s['selector'] }), target: defined(valueTarget(s['targetValue'], s['averageValue'])) });
      break;
    }
    case 'External': {
      const s = source('external');
      out['external'] = { metric: defined({ name: s['metricName'], selector: s['metricSelector'] }), target: defined(valueTarget(s['targetValue'], s['targetAverageValue'])) };
      break;
    }
  }
  return out;
}

// ── metric statuses ───────────────────────────────────────────────────────────

function metricStatusToV1(status: Json): Json {
  const type = status['type'];
  const out: Json = { type };
  const source = (key: string) => record(status[key]);
  const current = (key: string) => record(source(key)['current']);
  const id = (key: string) => record(source(key)['metric']);
  switch (type) {
    case 'Resource':
      out['resource'] = defined({ name: source('resource')['name'], currentAverageUtilization: current('resource')['averageUtilization'], currentAverageValue: current('resource')['averageValue'] });
      break;
    case 'ContainerResource':
      out['containerResource'] = defined({
        name: source('containerResource')['name'],
        currentAverageUtilization: current('containerResource')['averageUtilization'],
        currentAverageValue: current('containerResource')['averageValue'],
        container: source('containerResource')['container'],
      });
      break;
    case 'Pods':
      out['pods'] = defined({ metricName: id('pods')['name'], currentAverageValue: current('pods')['averageValue'], selector: id('pods')['selector'] });
      break;
    case 'Object':
      out['object'] = defined({
        target: source('object')['describedObject'],
        metricName: id('object')['name'],
        currentValue: current('object')['value'],
        selector: id('object')['selector'],
        averageValue: current('object')['averageValue'],
      });
      break;
    case 'External':
      out['external'] = defined({ metricName: id('external')['name'], metricSelector: id('external')['selector'], currentValue: current('external')['value'], currentAverageValue: current('external')['averageValue'] });
      break;
  }
  return out;
}

function metricStatusFromV1(status: Json): Json {
  const type = status['type'];
  const out: Json = { type };
  const source = (key: string) => record(status[key]);
  switch (type) {
    case 'Resource': {
      const s = source('resource');
      out['resource'] = { name: s['name'], current: defined({ averageUtilization: s['currentAverageUtilization'], averageValue: s['currentAverageValue'] }) };
      break;
    }
    case 'ContainerResource': {
      const s = source('containerResource');
      out['containerResource'] = defined({ name: s['name'], container: s['container'], current: defined({ averageUtilization: s['currentAverageUtilization'], averageValue: s['currentAverageValue'] }) });
      break;
    }
    case 'Pods': {
      const s = source('pods');
      out['pods'] = { metric: defined({ name: s['metricName'], selector: s['selector'] }), current: defined({ averageValue: s['currentAverageValue'] }) };
      break;
    }
    case 'Object': {
      const s = source('object');
      out['object'] = defined({ describedObject: s['target'], metric: defined({ name: s['metricName'], selector: s['selector'] }), current: defined({ value: s['currentValue'], averageValue: s['averageValue'] }) });
      break;
    }
    case 'External': {
      const s = source('external');
      out['external'] = { metric: defined({ name: s['metricName'], selector: s['metricSelector'] }), current: defined({ value: s['currentValue'], averageValue: s['currentAverageValue'] }) };
      break;
    }
  }
  return out;
}

/** Whether a v2 metric is the one v1 says as `targetCPUUtilizationPercentage`. */
const isCpuUtilization = (metric: Json): boolean =>
  metric['type'] === 'Resource' && record(metric['resource'])['name'] === 'cpu' && record(record(metric['resource'])['target'])['averageUtilization'] !== undefined;

const cpuUtilizationMetric = (percent: unknown): Json => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: percent } } });

// ── the objects ───────────────────────────────────────────────────────────────

/** A stored autoscaling/v2 HorizontalPodAutoscaler as autoscaling/v1 serves it. */
export function horizontalPodAutoscalerToV1(object: KubeObject): KubeObject {
  const v2 = object as KubeObject & { spec?: unknown; status?: unknown };
  const spec = record(v2.spec);
  const status = isRecord(v2.status) ? v2.status : undefined;
  const annotations: Record<string, string> = { ...(object.metadata.annotations ?? {}) };
  for (const key of ROUND_TRIP_ANNOTATIONS) delete annotations[key];

  const metrics = Array.isArray(spec['metrics']) ? spec['metrics'].filter(isRecord) : [];
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => !isCpuUtilization(m));
  if (others.length > 0) annotations[METRIC_SPECS_ANNOTATION] = JSON.stringify(others.map(metricSpecToV1));
  if (isRecord(spec['behavior'])) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(spec['behavior']);

  const currentMetrics = Array.isArray(status?.['currentMetrics']) ? (status['currentMetrics'] as unknown[]).filter(isRecord) : [];
  if (currentMetrics.length > 0) annotations[METRIC_STATUSES_ANNOTATION] = JSON.stringify(currentMetrics.map(metricStatusToV1));
  const conditions = Array.isArray(status?.['conditions']) ? (status['conditions'] as unknown[]) : [];
  if (conditions.length > 0) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(conditions);
  const cpuCurrent = currentMetrics.find((m) => m['type'] === 'Resource' && record(m['resource'])['name'] === 'cpu' && record(record(m['resource'])['current'])['averageUtilization'] !== undefined);

  const { metrics: _m, behavior: _b, ...specRest } = spec;
  const out: Json = {
    ...object,
    apiVersion: 'autoscaling/v1',
    metadata: withAnnotations(object.metadata, annotations),
    spec: defined({ ...specRest, targetCPUUtilizationPercentage: cpu ? record(record(cpu['resource'])['target'])['averageUtilization'] : undefined }),
  };
  if (status) {
    const { currentMetrics: _c, conditions: _k, ...statusRest } = status;
    out['status'] = defined({ ...statusRest, currentCPUUtilizationPercentage: cpuCurrent ? record(record(cpuCurrent['resource'])['current'])['averageUtilization'] : undefined });
  }
  return out as KubeObject;
}

/** An autoscaling/v1 HorizontalPodAutoscaler as it is stored, in autoscaling/v2. */
export function horizontalPodAutoscalerFromV1(object: KubeObject): KubeObject {
  const v1 = object as KubeObject & { spec?: unknown; status?: unknown };
  const spec = record(v1.spec);
  const status = isRecord(v1.status) ? v1.status : undefined;
  const annotations: Record<string, string> = { ...(object.metadata.annotations ?? {}) };
  const read = (key: string): unknown => {
    const value = parseJson(annotations[key]);
    delete annotations[key];
    return value;
  };
  const otherMetrics = read(METRIC_SPECS_ANNOTATION);
  const currentMetricsV1 = read(METRIC_STATUSES_ANNOTATION);
  const conditions = read(CONDITIONS_ANNOTATION);
  const behavior = read(BEHAVIOR_ANNOTATION);

  const { targetCPUUtilizationPercentage: cpu, ...specRest } = spec;
  // Upstream's order: the annotation's metrics first, then the CPU target.
  const metrics: Json[] = Array.isArray(otherMetrics) ? otherMetrics.filter(isRecord).map(metricSpecFromV1) : [];
  if (cpu !== undefined && cpu !== null) metrics.push(cpuUtilizationMetric(cpu));
  if (metrics.length === 0) metrics.push(cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION));

  const out: Json = {
    ...object,
    apiVersion: 'autoscaling/v2',
    metadata: withAnnotations(object.metadata, annotations),
    spec: defined({ ...specRest, metrics, behavior: isRecord(behavior) ? behavior : undefined }),
  };
  if (status) {
    const { currentCPUUtilizationPercentage: currentCpu, ...statusRest } = status;
    let currentMetrics: Json[] | undefined;
    if (Array.isArray(currentMetricsV1)) currentMetrics = currentMetricsV1.filter(isRecord).map(metricStatusFromV1);
    else if (currentCpu !== undefined && currentCpu !== null) currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: currentCpu } } }];
    out['status'] = defined({ ...statusRest, currentMetrics, conditions: Array.isArray(conditions) ? conditions : undefined });
  }
  return out as KubeObject;
}
