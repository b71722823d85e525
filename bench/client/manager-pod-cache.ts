// The controller manager's pod cache, per pod, as it was and as it is (branch mgrpod), in one
// process so that both see the same machine load: the live heap a cached pod adds (after full
// collections), and the CPU of one pod status write as the cache takes it (the watch frame read,
// the informer's transform, the record filed under the manager's pod indexes). Beside them, two
// per-pod costs of the workload loops: a created pod's answer read whole or as a view, and the
// Deployment loop's "is the status the same?" on a cached status view.
//
// The pods are made for real: an in-process svc-apiserver (memory store) creates PODS pods as the
// ReplicaSet loop does (a density Deployment's template through podFromTemplate, the set as
// controller), binds each, and writes the status a node agent writes (a merge patch of the fields
// it owns), so each pod carries the server's defaults, the service-account volume and the two
// managedFields entries (the creator's, the agent's status) a density pod has.
//   node --expose-gc --import tsx bench/client/manager-pod-cache.ts      (PODS=2000 ROUNDS=3 N=20000)
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { podClaims, type Deployment, type Pod, type PodTemplateSpec } from '../../src/api/index.js';
import { startApiServer } from '../../src/cli/apiserver-command.js';
import {
  builtin,
  Client,
  indexOn,
  InformerFactory,
  labelsIndex,
  namespaceIndex,
  OWNER_INDEX,
  ownerIndex,
  stripManagedFields,
  type IndexFunc,
} from '../../src/client/index.js';
import { recordOf } from '../../src/client/lazy/cached-record.js';
import { lazyProtobufFramer, lazyProtobufObjectDecoder } from '../../src/client/lazy/proto-decode.js';
import type { ProtoRecord } from '../../src/client/lazy/proto-view.js';
import { ViewCacheWriter } from '../../src/client/lazy/view-cache.js';
import { decodeProtobuf, encodeProtobuf, PROTOBUF_MEDIA_TYPE, protobufCodec, type JsonObject } from '../../src/encoding/index.js';
import { controllerRef } from '../../controllers/controller-ref.js';
import { statusEqual } from '../../controllers/deployment/deployment-status.js';
import { POD_NODE_INDEX, podNodeIndex } from '../../controllers/node-lifecycle/index.js';
import { CLAIM_INDEX, podClaimKeys } from '../../controllers/volume-matching/index.js';
import { podFromTemplate } from '../../controllers/workload/index.js';

const PODS = Number(process.env['PODS'] ?? 2000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const N = Number(process.env['N'] ?? 20_000);
const NS = 'fill';
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const collect = () => {
  for (let i = 0; i < 3; i++) gc();
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
const loadAtStart = load();

// --- The pods, made by a real API server -----------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-pod-cache-'));
const api = await startApiServer(['--storage=memory', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dir}`]);
const client = await Client.fromSvcconfig(api.svcconfigPath);
await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
await client.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NS } });
const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'density-12-5d8f7c9b4', namespace: NS, uid: '6f0c1e2a-3b4d-4c5e-8f9a-0b1c2d3e4f5a' } };
const template: PodTemplateSpec = {
  metadata: { labels: { app: 'density-12', 'pod-template-hash': '5d8f7c9b4' } },
  spec: { containers: [{ name: 'app', image: 'registry.example/pause:1', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
} as PodTemplateSpec;
const reference = controllerRef(owner as never, { group: 'apps', version: 'v1', kind: 'ReplicaSet' });
let createdAnswer: JsonObject | undefined;
const at = '2026-11-28T10:00:00Z';
const makePod = async (i: number): Promise<void> => {
  const created = await client.create(builtin.pods, podFromTemplate(template, { namespace: NS, controllerRef: reference }), { fieldManager: 'svc-controller-manager' });
  createdAnswer ??= created as unknown as JsonObject;
  const name = created.metadata.name!;
  await client.bind(name, `hollow-${String(i % 100).padStart(5, '0')}`, { namespace: NS });
  const ready = (type: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: at });
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  await client.patchStatus(
    builtin.pods,
    name,
    {
      status: {
        phase: 'Running',
        conditions: [ready('PodReadyToStartContainers'), ready('Initialized'), ready('Ready'), ready('ContainersReady'), ready('PodScheduled')],
        hostIP: '10.255.0.1',
        hostIPs: [{ ip: '10.255.0.1' }],
        podIP: ip,
        podIPs: [{ ip }],
        startTime: at,
        qosClass: 'Burstable',
        containerStatuses: [
          {
            name: 'app',
            state: { running: { startedAt: at } },
            lastState: {},
            ready: true,
            restartCount: 0,
            image: 'registry.example/pause:1',
            imageID: 'registry.example/pause@sha256:7031c1b283388d2c2e09b57badb803c05ebed362dc88d84b480cc47f72a21097',
            containerID: `containerd://${i.toString(16).padStart(64, '0')}`,
            started: true,
          },
        ],
      },
    },
    { type: 'merge', namespace: NS, fieldManager: 'svc-nodeagent' },
  );
};
for (let i = 0; i < PODS; i += 50) await Promise.all(Array.from({ length: Math.min(50, PODS - i) }, (_, j) => makePod(i + j)));

// --- Memory a cached pod holds --------------------------------------------------------------

// The manager's pod indexes: namespace, labels and owner (built in), by node, by claim, and the
// attach-detach loop's claims by node. Before: none declared what it reads (an index given a
// function drops `reads`); now: the three pod indexes read the spec alone.
const claimNode = (pod: Pod): string[] => (pod.spec.nodeName && podClaims(pod).length > 0 ? [pod.spec.nodeName] : []);
const indexers = (now: boolean): Record<string, IndexFunc<Pod>> =>
  now
    ? { [POD_NODE_INDEX]: podNodeIndex, [CLAIM_INDEX]: podClaimKeys, claimNode: indexOn(['spec'], claimNode) }
    : { [POD_NODE_INDEX]: (pod) => podNodeIndex(pod), [CLAIM_INDEX]: (pod) => podClaimKeys(pod), claimNode };

/** The live heap the pod cache adds, per pod, and its records' bytes, the manager's informer as it was (`now` false) or is. */
async function heldPerPod(now: boolean): Promise<{ kb: number; recordBytes: number }> {
  collect();
  const before = process.memoryUsage().heapUsed;
  const factory = new InformerFactory(client, now ? { transform: stripManagedFields } : {});
  const pods = factory.informer(builtin.pods, { namespace: NS, ownerIndex: true, indexers: indexers(now) });
  await pods.waitForSync();
  collect();
  const after = process.memoryUsage().heapUsed;
  const recordBytes = pods.store.list().reduce((total, pod) => total + (recordOf(pod) as ProtoRecord).text.length, 0) / pods.store.size;
  if (pods.store.size !== PODS || pods.store.byIndex(OWNER_INDEX, owner.metadata.uid).length !== PODS) throw new Error('the cache does not hold every pod');
  pods.stop();
  return { kb: (after - before) / 1024 / PODS, recordBytes };
}

const memory: { before: number[]; now: number[]; recordBytes: { before: number; now: number } } = { before: [], now: [], recordBytes: { before: 0, now: 0 } };
// Once unmeasured: what the first informer loads for good (protobuf decoders, shared strings) is no pod's.
await heldPerPod(true);
for (let r = 0; r < ROUNDS; r++) {
  for (const now of [false, true]) {
    const held = await heldPerPod(now);
    memory[now ? 'now' : 'before'].push(held.kb);
    memory.recordBytes[now ? 'now' : 'before'] = held.recordBytes;
  }
}

// --- CPU of one status write, as the cache takes it ------------------------------------------

// Each pod's stored version, and the one its next status write makes: the Ready condition's
// time, the agent's managedFields time and the resourceVersion moved.
const listed = (await client.list(builtin.pods, { namespace: NS })).items as unknown as JsonObject[];
const next = listed.map((pod) => {
  const metadata = pod['metadata'] as JsonObject;
  const status = pod['status'] as JsonObject;
  return {
    ...pod,
    metadata: {
      ...metadata,
      resourceVersion: String(Number(metadata['resourceVersion']) + 1_000_000),
      managedFields: (metadata['managedFields'] as JsonObject[]).map((entry) => (entry['manager'] === 'svc-nodeagent' ? { ...entry, time: '2026-11-28T10:00:05Z' } : entry)),
    },
    status: { ...status, conditions: (status['conditions'] as JsonObject[]).map((c) => (c['type'] === 'Ready' ? { ...c, lastTransitionTime: '2026-11-28T10:00:05Z' } : c)) },
  };
});
const frames = (objects: JsonObject[]) => objects.map((object) => protobufCodec.frame!('MODIFIED', object));
const storedFrames = frames(listed);
const nextFrames = frames(next as JsonObject[]);

/** CPU µs per status write: the frame read, transformed (now: managedFields cut), filed under the pod indexes. */
function statusWriteMicros(now: boolean): number {
  const cache = new ViewCacheWriter<Pod>({ namespace: namespaceIndex, labels: labelsIndex, [OWNER_INDEX]: ownerIndex, ...indexers(now) });
  const prepare: (pod: Pod) => Pod = now ? stripManagedFields : (pod) => pod;
  const framer = lazyProtobufFramer();
  for (const frame of storedFrames) for (const event of framer.push(frame) as { object: Pod }[]) cache.upsert(prepare(event.object));
  let events = 0;
  const start = process.cpuUsage();
  for (let done = 0; done < N; done += nextFrames.length) {
    // Alternate the two versions so that each pass is a change.
    for (const frame of (done / nextFrames.length) % 2 === 0 ? nextFrames : storedFrames) {
      for (const event of framer.push(frame) as { object: Pod }[]) {
        cache.upsert(prepare(event.object));
        events += 1;
      }
    }
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / events;
}

// --- A created pod's answer, and the Deployment loop's status comparison ---------------------

const answer = encodeProtobuf(createdAnswer!);
function answerMicros(view: boolean): number {
  let sink = 0;
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const pod = (view ? lazyProtobufObjectDecoder(answer, PROTOBUF_MEDIA_TYPE) : decodeProtobuf(answer)) as unknown as Pod;
    sink += pod.metadata.name!.length;
  }
  const used = process.cpuUsage(start);
  if (sink === 0) throw new Error('unreachable');
  return (used.user + used.system) / N;
}

const condition = (type: string, reason: string) => ({ type, status: 'True', lastUpdateTime: at, lastTransitionTime: at, reason, message: `${type}: ${reason}.` });
const deploymentStatus = { observedGeneration: 3, replicas: 100, updatedReplicas: 100, readyReplicas: 97, availableReplicas: 97, unavailableReplicas: 3, conditions: [condition('Available', 'MinimumReplicasAvailable'), condition('Progressing', 'ReplicaSetUpdated')] };
const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'density-12', namespace: NS, resourceVersion: '9' }, spec: { selector: { matchLabels: { app: 'density-12' } }, template }, status: deploymentStatus };
const deploymentView = (lazyProtobufFramer().push(protobufCodec.frame!('MODIFIED', deployment as unknown as JsonObject)) as { object: Deployment }[])[0]!.object;
/** The rule statusEqual replaced: both statuses through JSON, then compared deeply. */
const roundTripEqual = (a: object | undefined, b: object) => isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? {})), JSON.parse(JSON.stringify(b)));
function statusEqualMicros(inPlace: boolean): number {
  let same = 0;
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) if ((inPlace ? statusEqual : roundTripEqual)(deploymentView.status, { ...deploymentStatus, collisionCount: undefined })) same += 1;
  const used = process.cpuUsage(start);
  if (same !== N) throw new Error('the statuses must compare equal');
  return (used.user + used.system) / N;
}

const cpu = { statusWrite: { before: [] as number[], now: [] as number[] }, createdAnswer: { whole: [] as number[], view: [] as number[] }, statusEqual: { roundTrip: [] as number[], inPlace: [] as number[] } };
statusWriteMicros(false);
statusWriteMicros(true);
for (let r = 0; r < ROUNDS; r++) {
  cpu.statusWrite.before.push(statusWriteMicros(false));
  cpu.statusWrite.now.push(statusWriteMicros(true));
  cpu.createdAnswer.whole.push(answerMicros(false));
  cpu.createdAnswer.view.push(answerMicros(true));
  cpu.statusEqual.roundTrip.push(statusEqualMicros(false));
  cpu.statusEqual.inPlace.push(statusEqualMicros(true));
}

const fixed = (x: number, digits = 2) => Number(x.toFixed(digits));
const pair = <K extends string>(rows: Record<K, number[]>) => Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, { median: fixed(median(v as number[])), rounds: (v as number[]).map((x) => fixed(x)) }]));
console.log(
  JSON.stringify(
    {
      pods: PODS,
      rounds: ROUNDS,
      heldKbPerPod: pair({ before: memory.before, now: memory.now }),
      recordBytesPerPod: { before: Math.round(memory.recordBytes.before), now: Math.round(memory.recordBytes.now) },
      cpuMicrosPerStatusWrite: pair(cpu.statusWrite),
      cpuMicrosPerCreatedAnswer: pair(cpu.createdAnswer),
      cpuMicrosPerStatusEqual: pair(cpu.statusEqual),
      load: `${loadAtStart} → ${load()}`,
    },
    null,
    2,
  ),
);
await client.destroy();
await api.close();
rmSync(dir, { recursive: true, force: true });
