// CPU per Lease renewal of the garbage collector's metadata-only informer transform
// (stripManagedFields), the old way (decode the lazy object's metadata, copy it without
// managedFields; the lazy cache then re-reads the plain copy through JSON.stringify) against the
// new one (the member cut from the record's text), alternated in one process so that both see
// the same machine load: the ratio is the figure, not the microseconds.
//   node --import tsx bench/client/strip-managed-fields.ts        (ROUNDS=5, N=20000)
import { loadavg } from 'node:os';
import type { KubeObject } from '../../src/api/index.js';
import { stripManagedFields } from '../../src/client/index.js';
import { lazyObject } from '../../src/client/lazy/json-view.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
const N = Number(process.env['N'] ?? 20_000);

// A node Lease as a metadata-only watch event carries it (PartialObjectMetadata), managedFields included.
const line = (i: number) =>
  `{"type":"MODIFIED","object":${JSON.stringify({
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {
      name: `hollow-${String(i % 1000).padStart(5, '0')}`,
      namespace: 'kube-node-lease',
      uid: `3f1c2a4e-8d1b-4c55-9a0e-${String(i % 1000).padStart(12, '0')}`,
      resourceVersion: String(100_000 + i),
      creationTimestamp: '2026-11-27T13:49:30Z',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: `hollow-${String(i % 1000).padStart(5, '0')}`, uid: `9a7e0c1d-2b3f-4e5a-8c6d-${String(i % 1000).padStart(12, '0')}` }],
      managedFields: [
        {
          manager: 'nodeagent',
          operation: 'Update',
          apiVersion: 'coordination.k8s.io/v1',
          time: '2026-11-27T13:59:30Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:ownerReferences': { '.': {}, 'k:{"uid":"9a7e0c1d"}': {} } }, 'f:spec': { 'f:holderIdentity': {}, 'f:leaseDurationSeconds': {}, 'f:renewTime': {} } },
        },
      ],
    },
  })}}`;
const lines = Array.from({ length: 1000 }, (_, i) => line(i));
const event = (i: number) => lazyObject<KubeObject>(lines[i % lines.length]!, 28);

/** The old transform and what the lazy cache did with its plain answer. */
function copyWay(object: KubeObject): KubeObject {
  const { managedFields: _dropped, ...metadata } = object.metadata;
  return lazyObject<KubeObject>(JSON.stringify({ ...object, metadata }), 0);
}

function cpuMsPer1000(transform: (o: KubeObject) => KubeObject): number {
  let sink = 0;
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) sink += transform(event(i)).metadata.name!.length;
  const used = process.cpuUsage(start);
  if (sink === 0) throw new Error('unreachable');
  return ((used.user + used.system) / 1000 / N) * 1000;
}

cpuMsPer1000(copyWay);
cpuMsPer1000(stripManagedFields);
const rows: { copy: number; cut: number }[] = [];
for (let r = 0; r < ROUNDS; r++) rows.push({ copy: cpuMsPer1000(copyWay), cut: cpuMsPer1000(stripManagedFields) });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const copy = median(rows.map((r) => r.copy));
const cut = median(rows.map((r) => r.cut));
console.log(JSON.stringify({ events: N, rounds: ROUNDS, cpuMsPer1000Events: { copy: Number(copy.toFixed(1)), cut: Number(cut.toFixed(1)) }, ratio: Number((copy / cut).toFixed(2)), load: loadavg().map((n) => n.toFixed(2)).join(' ') }));
