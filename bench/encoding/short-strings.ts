// Short strings and whole-second times shared by the protobuf decoder (src/encoding/protobuf/
// short-strings.ts, time-strings.ts): CPU of a Pod's decode and the heap its decoded object holds,
// before (AB_BEFORE: a checkout of the tree before the change, its node_modules linked; without
// it, this tree's conversion over protobufjs' own reader, times shared) and now, in alternating
// rounds of one process. The pods are a density run's as a hollow node holds them (made by a
// Deployment, defaulted, bound, Running; three managedFields entries; created 50 a second), each
// with its own name, uid, IP and version. JSON.parse of the same pods is measured alongside (V8
// shares short JSON values of its own), and a JSON.parse whose strings are then deduplicated
// through a Map (what sharing could save there at most).
//   AB_BEFORE=/tmp/svc-before node --expose-gc --import tsx bench/encoding/short-strings.ts
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measure } from 'mitata';
import { decodeMessage, encodeRaw, fromMessage, messageOf, type JsonObject } from '../../src/encoding/index.js';
import { densityPodSpec } from '../support/density-pod-spec.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Pod `i` of Deployment `d`, on node `n`, as the API server serves it once Running. */
function pod(i: number): JsonObject {
  // Created at 50 a second: neighbours share their times.
  const time = `${new Date(Date.UTC(2026, 10, 28, 6) + Math.floor(i / 50) * 1000).toISOString().slice(0, 19)}Z`;
  const d = i % 50;
  const rs = `density-${d}-6b7c9d8f5`;
  const name = `${rs}-${pad(i, 5)}`;
  const node = `hollow-node-${i % 200}`;
  const ip = `10.${64 + (i % 200)}.${Math.floor(i / 250) % 250}.${i % 250}`;
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name,
      generateName: `${rs}-`,
      namespace: 'density',
      uid: `5b8e2f4a-1c3d-4e5f-8a9b-${pad(i, 12)}`,
      resourceVersion: String(100_000 + i),
      creationTimestamp: time,
      labels: { app: `density-${d}`, 'pod-template-hash': '6b7c9d8f5' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: `0d1e2f3a-4b5c-6d7e-8f9a-${pad(d, 12)}`, controller: true, blockOwnerDeletion: true }],
      managedFields: [
        { manager: 'svc-controller-manager', operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
        { manager: 'svc-scheduler', operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', subresource: 'binding', fieldsV1: { 'f:spec': { 'f:nodeName': {} } } },
        { manager: 'svc-node', operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:containerStatuses': {}, 'f:hostIP': {}, 'f:phase': {}, 'f:podIP': {}, 'f:startTime': {} } } },
      ],
    },
    spec: densityPodSpec(`kube-api-access-${pad(i % 100_000, 5)}`, node),
    status: {
      phase: 'Running',
      conditions: [
        { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: time },
        { type: 'Initialized', status: 'True', lastTransitionTime: time },
        { type: 'Ready', status: 'True', lastTransitionTime: time },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: time },
        { type: 'PodScheduled', status: 'True', lastTransitionTime: time },
      ],
      hostIP: `10.0.${Math.floor((i % 200) / 250)}.${i % 200}`,
      hostIPs: [{ ip: `10.0.${Math.floor((i % 200) / 250)}.${i % 200}` }],
      podIP: ip,
      podIPs: [{ ip }],
      startTime: time,
      containerStatuses: [
        {
          name: 'app',
          state: { running: { startedAt: time } },
          lastState: {},
          ready: true,
          restartCount: 0,
          image: 'registry.example/pause:1',
          imageID: 'registry.example/pause@sha256:7031c1b283388d2c2e09b57badb803c05ebed362dc88d84b480cc47f72a21097',
          containerID: `containerd://${pad(i, 64)}`,
          started: true,
        },
      ],
      qosClass: 'Burstable',
    },
  };
}

const N = Number(process.env['PODS'] ?? 6000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
const type = messageOf('v1', 'Pod')!;
const pods = Array.from({ length: N }, (_, i) => pod(i));
// Each pod's message in a Buffer of its own, as a watch chunk hands it over.
const raws = pods.map((p) => Buffer.from(encodeRaw(p)!));
const texts = pods.map((p) => Buffer.from(JSON.stringify(p)));

interface Encoding {
  messageOf(apiVersion: string, kind: string): typeof type | undefined;
  fromMessage(type: object, message: JsonObject): JsonObject;
}
const before = process.env['AB_BEFORE'] ? ((await import(pathToFileURL(join(process.env['AB_BEFORE'], 'src/encoding/index.ts')).href)) as Encoding) : { messageOf, fromMessage };
const beforeType = before.messageOf('v1', 'Pod')!;

const ways: Record<string, (i: number) => unknown> = {
  [`protobuf, protobufjs reader (before${process.env['AB_BEFORE'] ? '' : ', times shared'})`]: (i) => before.fromMessage(beforeType, beforeType.decode(raws[i]!) as unknown as JsonObject),
  'protobuf, shared short strings (now)': (i) => fromMessage(type, decodeMessage(type, raws[i]!) as unknown as JsonObject),
  'JSON.parse': (i) => JSON.parse(texts[i]!.toString()),
  'JSON.parse, strings deduplicated (bound)': (i) => dedupe(JSON.parse(texts[i]!.toString())),
};

/** Every string value replaced by the first equal one seen: what sharing could save at most. */
const seen = new Map<string, string>();
function dedupe(value: unknown): unknown {
  if (typeof value === 'string') {
    const held = seen.get(value);
    if (held !== undefined) return held;
    seen.set(value, value);
    return value;
  }
  if (Array.isArray(value)) return value.map(dedupe);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = dedupe(v);
    return out;
  }
  return value;
}

/** The heap held a pod once all N are decoded and held, and the CPU µs a decode took (process.cpuUsage: robust to a loaded machine, unlike wall time). */
function heapPerPod(decode: (i: number) => unknown): { heap: number; cpu: number } {
  for (let k = 0; k < 3; k++) gc!();
  const before = process.memoryUsage().heapUsed;
  const held = new Array<unknown>(N);
  const cpu = process.cpuUsage();
  for (let i = 0; i < N; i++) held[i] = decode(i);
  const { user, system } = process.cpuUsage(cpu);
  for (let k = 0; k < 3; k++) gc!();
  const after = process.memoryUsage().heapUsed;
  if (held.length !== N) throw new Error('unreachable');
  return { heap: (after - before) / N, cpu: (user + system) / N };
}

const heap: Record<string, number[]> = {};
const cpuHeld: Record<string, number[]> = {};
const cpu: Record<string, number[]> = {};
const names = Object.keys(ways);
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 ? [...names].reverse() : names) {
    seen.clear();
    const held = heapPerPod(ways[name]!);
    (heap[name] ??= []).push(held.heap);
    (cpuHeld[name] ??= []).push(held.cpu);
    seen.clear();
    if (name.startsWith('JSON.parse, strings')) continue;
    let i = 0;
    const stats = await measure(() => ways[name]!(i++ % N), { min_cpu_time: 300 * 1e6 });
    (cpu[name] ??= []).push(stats.avg);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`${N} pods, ${raws[0]!.length} B of message and ${texts[0]!.length} B of JSON each; medians of ${ROUNDS} alternating rounds`);
console.log('| decode | heap held a pod (B) | CPU µs a decode, N held (cpuUsage) | µs a decode (mitata, wall) |');
console.log('| --- | --- | --- | --- |');
for (const name of names) {
  const rounds = (values: number[], digits: number) => values.map((v) => v.toFixed(digits)).join(', ');
  console.log(`| ${name} | ${Math.round(median(heap[name]!))} (${rounds(heap[name]!, 0)}) | ${median(cpuHeld[name]!).toFixed(1)} (${rounds(cpuHeld[name]!, 1)}) | ${cpu[name] ? (median(cpu[name]) / 1000).toFixed(2) : '-'} |`);
}
