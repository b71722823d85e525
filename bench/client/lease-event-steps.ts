// What one node Lease renewal costs the controller manager's JavaScript, step by step, in one
// process and without a server (issue #26, idle nodes): the renewal's protobuf watch frame, as the
// API server writes it, goes through what the manager does with it —
//   frame     the lazy protobuf framer: the frame's fields walked, the Lease's bytes copied into a
//             record, its view made (src/client/lazy/proto-decode.ts)
//   cache     the informer's cache update: the record stored, the namespace, labels and owner
//             indexes compared by bytes (src/client/lazy/view-cache.ts)
//   gc        the garbage collector's look at the update (controllers/garbage-collector/triggers.ts)
//   pass      the node lifecycle's monitor pass reading the new version's renewTime (once per
//             version: controllers/node-lifecycle/node-reading.ts)
// and, apart, the garbage collector's pipeline around an event that asks for nothing, in its old
// shape (`mergeMap(event => ids)`) and its new one (`filter` first), both in this run.
// The socket, TLS and HTTP read of the frame and V8's collections are not in it (the process
// figures of bench:manager-leases and bench:idle-nodes hold them). Each step is timed over
// LEASES renewals at once (process CPU, all threads), ROUNDS times; the median of the second half
// of the rounds is printed. Compare two trees by running this file in each, alternately:
//   node --import tsx bench/client/lease-event-steps.ts        (LEASES=1000 ROUNDS=40)
import { loadavg } from 'node:os';
import { filter, map, mergeMap, Subject } from 'rxjs';
import type { KubeObject, Lease } from '../../src/api/index.js';
import { labelsIndex, namespaceIndex, type IndexFunc } from '../../src/client/cache.js';
import { OWNER_INDEX, ownerIndex } from '../../src/client/owner-index.js';
import { lazyProtobufFramer } from '../../src/client/lazy/proto-decode.js';
import { ViewCacheWriter } from '../../src/client/lazy/view-cache.js';
import { protobufEventFrame } from '../../src/encoding/protobuf/envelope.js';
import { OwnershipGraph } from '../../controllers/garbage-collector/graph.js';
import { triggeredBy } from '../../controllers/garbage-collector/triggers.js';
import { NodeReadings } from '../../controllers/node-lifecycle/node-reading.js';
import type { ApiResource, InformerEvent } from '../../src/client/index.js';

const LEASES = Number(process.env['LEASES'] ?? 1000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 40);
/** Versions per Lease written up front: the rounds cycle through them, so every renewal is a new version. */
const VERSIONS = 4;

const nodeName = (i: number) => `hollow-${String(i).padStart(5, '0')}`;
// A node Lease as the API server stores a hollow node's renewal: owned by its Node, one managedFields entry.
const lease = (i: number, version: number) => ({
  apiVersion: 'coordination.svc.io/v1',
  kind: 'Lease',
  metadata: {
    name: nodeName(i),
    namespace: 'svc-node-lease',
    uid: `3f1c2a4e-8d1b-4c55-9a0e-${String(i).padStart(12, '0')}`,
    resourceVersion: String(100_000 + version * LEASES + i),
    creationTimestamp: '2026-11-27T13:49:30Z',
    ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName(i), uid: `9a7e0c1d-2b3f-4e5a-8c6d-${String(i).padStart(12, '0')}` }],
    managedFields: [
      {
        manager: 'svc-nodeagent',
        operation: 'Update',
        apiVersion: 'coordination.svc.io/v1',
        time: '2026-11-28T02:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:ownerReferences': { '.': {}, [`k:{"uid":"9a7e0c1d-2b3f-4e5a-8c6d-${String(i).padStart(12, '0')}"}`]: {} } }, 'f:spec': { 'f:holderIdentity': {}, 'f:leaseDurationSeconds': {}, 'f:renewTime': {} } },
      },
    ],
  },
  spec: { holderIdentity: nodeName(i), leaseDurationSeconds: 40, renewTime: `2026-11-28T02:${String((version * 10) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${String(123_456 + i).padStart(6, '0')}Z` },
});
const frames: Buffer[] = [];
for (let version = 0; version < VERSIONS; version++) {
  for (let i = 0; i < LEASES; i++) frames.push(Buffer.from(protobufEventFrame('MODIFIED', 'coordination.svc.io/v1', 'Lease', Buffer.from(JSON.stringify(lease(i, version))))));
}

const leases: ApiResource = { group: 'coordination.svc.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true, verbs: ['list', 'watch', 'delete'] };
const graph = new OwnershipGraph();
const framer = lazyProtobufFramer();
const cache = new ViewCacheWriter<KubeObject>({ namespace: namespaceIndex, labels: labelsIndex, [OWNER_INDEX]: ownerIndex as IndexFunc<KubeObject> });
const readings = new NodeReadings();

let next = 0;
const objects: KubeObject[] = new Array(LEASES);
const changes: InformerEvent<KubeObject>[] = new Array(LEASES);
const cpu = (work: () => void): number => {
  const from = process.cpuUsage();
  work();
  const used = process.cpuUsage(from);
  return (used.user + used.system) / LEASES;
};

// The collector's pipeline shapes over an event that triggers nothing (a renewal): the old and the new.
const nothing: string[] = [];
const before = new Subject<unknown>();
const after = new Subject<unknown>();
let keys = 0;
before.pipe(mergeMap(() => nothing.map(String))).subscribe(() => (keys += 1));
after.pipe(map(() => nothing), filter((ids) => ids.length > 0), mergeMap((ids) => ids.map(String))).subscribe(() => (keys += 1));

const steps = {
  frame: () => {
    for (let i = 0; i < LEASES; i++) objects[i] = (framer.push(frames[next++ % frames.length]!) as { object: KubeObject }[])[0]!.object;
  },
  cache: () => {
    for (let i = 0; i < LEASES; i++) changes[i] = cache.upsert(objects[i]!)!;
  },
  gc: () => {
    for (let i = 0; i < LEASES; i++) if (triggeredBy(changes[i]!, leases, graph).length !== 0) throw new Error('a renewal triggered the collector');
  },
  pass: () => {
    for (let i = 0; i < LEASES; i++) readings.lease(nodeName(i), cache.reader.get(`svc-node-lease/${nodeName(i)}`) as unknown as Lease);
  },
  'gc pipeline, old shape': () => {
    for (let i = 0; i < LEASES; i++) before.next(i);
  },
  'gc pipeline, new shape': () => {
    for (let i = 0; i < LEASES; i++) after.next(i);
  },
};
const rounds = new Map<string, number[]>(Object.keys(steps).map((name) => [name, []]));
// Every Lease cached once first: what follows are renewals (updates), as at idle nodes.
steps.frame();
steps.cache();
const load = loadavg()[0]!.toFixed(2);
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, work] of Object.entries(steps)) rounds.get(name)!.push(cpu(work));
}
if (keys !== 0) throw new Error('a pipeline emitted a key');
const median = (values: number[]) => {
  const kept = values.slice(Math.floor(values.length / 2)).sort((a, b) => a - b);
  return kept[Math.floor(kept.length / 2)]!;
};
const result = Object.fromEntries([...rounds].map(([name, values]) => [name, Number(median(values).toFixed(2))]));
const perRenewal = ['frame', 'cache', 'gc', 'pass'].reduce((sum, name) => sum + result[name]!, 0);
console.log(JSON.stringify({ leases: LEASES, rounds: ROUNDS, load: `${load} → ${loadavg()[0]!.toFixed(2)}`, usPerRenewal: result, stepsTotalUs: Number(perRenewal.toFixed(2)) }));
