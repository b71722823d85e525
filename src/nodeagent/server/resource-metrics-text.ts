import type { StatsSummary } from './stats-summary.js';

/**
 * `/metrics/resource`: the kubelet's resource metrics endpoint (what metrics-server scrapes), in
 * the Prometheus text format, from the same figures as `/stats/summary`: CPU as cumulative
 * core-seconds (counters), memory as working-set bytes (gauges), each sample stamped with the time
 * the runtime read it (ms). Series without a figure are left out.
 */

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const at = (figure: Json) => {
  const ms = typeof figure['time'] === 'string' ? Date.parse(figure['time']) : Number.NaN;
  return Number.isFinite(ms) ? ` ${ms}` : '';
};
// Label values escape backslash, quote and newline (the text format's rules).
const label = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labels = (pairs: Record<string, string>) => `{${Object.entries(pairs).map(([k, v]) => `${k}="${label(v)}"`).join(',')}}`;

const FAMILIES = [
  ['node_cpu_usage_seconds_total', 'counter', 'Cumulative cpu time consumed by the node in core-seconds'],
  ['node_memory_working_set_bytes', 'gauge', "Current working set of the node in bytes"],
  ['pod_cpu_usage_seconds_total', 'counter', 'Cumulative cpu time consumed by the pod in core-seconds'],
  ['pod_memory_working_set_bytes', 'gauge', 'Current working set of the pod in bytes'],
  ['container_cpu_usage_seconds_total', 'counter', 'Cumulative cpu time consumed by the container in core-seconds'],
  ['container_memory_working_set_bytes', 'gauge', 'Current working set of the container in bytes'],
  ['container_start_time_seconds', 'gauge', 'Start time of the container since unix epoch in seconds'],
] as const;

export function resourceMetricsText(summary: StatsSummary): string {
  const series = new Map<string, string[]>(FAMILIES.map(([name]) => [name, []]));
  const add = (name: string, lbls: Record<string, string>, value: number | undefined, figure: Json) => {
    if (value !== undefined) series.get(name)!.push(`${name}${Object.keys(lbls).length ? labels(lbls) : ''} ${value}${at(figure)}`);
  };
  const cpuSeconds = (cpu: Json) => {
    const nanos = num(cpu['usageCoreNanoSeconds']);
    return nanos === undefined ? undefined : nanos / 1e9;
  };
  const cpuOf = (o: Json) => (isRecord(o['cpu']) ? o['cpu'] : {});
  const memoryOf = (o: Json) => (isRecord(o['memory']) ? o['memory'] : {});

  add('node_cpu_usage_seconds_total', {}, cpuSeconds(cpuOf(summary.node)), cpuOf(summary.node));
  add('node_memory_working_set_bytes', {}, num(memoryOf(summary.node)['workingSetBytes']), memoryOf(summary.node));
  for (const pod of summary.pods) {
    const ref = isRecord(pod['podRef']) ? pod['podRef'] : {};
    const podLabels = { namespace: String(ref['namespace'] ?? ''), pod: String(ref['name'] ?? '') };
    add('pod_cpu_usage_seconds_total', podLabels, cpuSeconds(cpuOf(pod)), cpuOf(pod));
    add('pod_memory_working_set_bytes', podLabels, num(memoryOf(pod)['workingSetBytes']), memoryOf(pod));
    for (const container of Array.isArray(pod['containers']) ? pod['containers'].filter(isRecord) : []) {
      const containerLabels = { container: String(container['name'] ?? ''), ...podLabels };
      add('container_cpu_usage_seconds_total', containerLabels, cpuSeconds(cpuOf(container)), cpuOf(container));
      add('container_memory_working_set_bytes', containerLabels, num(memoryOf(container)['workingSetBytes']), memoryOf(container));
      const start = typeof container['startTime'] === 'string' ? Date.parse(container['startTime']) : Number.NaN;
      if (Number.isFinite(start)) series.get('container_start_time_seconds')!.push(`container_start_time_seconds${labels(containerLabels)} ${start / 1000}`);
    }
  }
  let text = '';
  for (const [name, type, help] of FAMILIES) {
    text += `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`;
    for (const line of series.get(name)!) text += `${line}\n`;
  }
  // The kubelet's own health series: 0 when the figures were read.
  return `${text}# HELP scrape_error 1 if there was an error while getting container metrics, 0 otherwise\n# TYPE scrape_error gauge\nscrape_error 0\n`;
}
