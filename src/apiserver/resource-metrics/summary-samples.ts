import type { CounterSample } from './usage-series.js';

/**
 * The samples of one node agent's `/stats/summary` (the Summary API's shape): the node's CPU
 * counter and memory working set, and each container's, keyed by pod UID and container name.
 * What is missing or malformed is left out, never guessed.
 */

export interface PodRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export interface NodeSummarySamples {
  readonly node: CounterSample | undefined;
  /** By pod UID: the pod and its containers' samples by container name. */
  readonly pods: ReadonlyMap<string, { readonly ref: PodRef; readonly containers: ReadonlyMap<string, CounterSample> }>;
}

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

function sampleOf(cpu: unknown, memory: unknown, fallbackMs: number): CounterSample | undefined {
  if (!isRecord(cpu) || !isRecord(memory)) return undefined;
  const cpuNanos = num(cpu['usageCoreNanoSeconds']);
  const memoryBytes = num(memory['workingSetBytes']);
  if (cpuNanos === undefined || memoryBytes === undefined) return undefined;
  const at = typeof cpu['time'] === 'string' ? Date.parse(cpu['time']) : Number.NaN;
  return { atMs: Number.isFinite(at) ? at : fallbackMs, cpuNanos, memoryBytes };
}

export function summarySamples(summary: unknown, nowMs: number): NodeSummarySamples {
  const root = isRecord(summary) ? summary : {};
  const node = isRecord(root['node']) ? sampleOf(root['node']['cpu'], root['node']['memory'], nowMs) : undefined;
  const pods = new Map<string, { ref: PodRef; containers: Map<string, CounterSample> }>();
  for (const pod of Array.isArray(root['pods']) ? root['pods'] : []) {
    if (!isRecord(pod) || !isRecord(pod['podRef'])) continue;
    const { namespace, name, uid } = pod['podRef'];
    if (typeof namespace !== 'string' || typeof name !== 'string' || typeof uid !== 'string' || !uid) continue;
    const containers = new Map<string, CounterSample>();
    for (const container of Array.isArray(pod['containers']) ? pod['containers'] : []) {
      if (!isRecord(container) || typeof container['name'] !== 'string') continue;
      const sample = sampleOf(container['cpu'], container['memory'], nowMs);
      if (sample) containers.set(container['name'], sample);
    }
    pods.set(uid, { ref: { namespace, name, uid }, containers });
  }
  return { node, pods };
}
