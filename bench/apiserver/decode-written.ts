// CPU of the watch cache's decode of a version this server wrote (a node's Lease renewal, handed
// over with the writer's object): the decode alone, as for a type no protobuf reader watches, and
// the decode with the version's first protobuf watch frame (the manager's Lease informer). mitata,
// in this tree and, with AB_BEFORE=<a checkout of the tree before, its node_modules linked>, in
// that tree too, in one process, rounds alternating.
//   AB_BEFORE=/tmp/svc-before node --import tsx bench/apiserver/decode-written.ts
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measure } from 'mitata';

interface Tree {
  readonly name: string;
  decode(bytes: Uint8Array, revision: number): { json: Uint8Array };
  encode(object: object): Uint8Array;
  frame(json: Uint8Array): Uint8Array;
}

async function load(name: string, root: string): Promise<Tree> {
  const at = (file: string) => import(pathToFileURL(join(root, file)).href);
  const api = await at('src/api/index.ts');
  const { servedObjectDecoder } = await at('src/apiserver/served-object.ts');
  const { encodeForStorage } = await at('src/apiserver/storage-codec.ts');
  const { protobufEventFrame } = await at('src/encoding/protobuf/envelope.ts');
  const texts = await at('src/apiserver/served-texts.ts');
  const leases = api.builtinRegistry().lookup('coordination.svc.io', 'v1', 'leases');
  // As the server's caches make it: with the server's served-texts table where the tree has one per server.
  const decoder = texts.ServedTexts ? servedObjectDecoder(leases, new texts.ServedTexts()) : servedObjectDecoder(leases);
  return {
    name,
    decode: (bytes, revision) => decoder({ key: '/registry/coordination.svc.io/leases/kube-node-lease/node-1', value: bytes, modRevision: revision, createRevision: 1 }, revision),
    encode: (object) => encodeForStorage(object, leases, true),
    frame: (json) => protobufEventFrame('MODIFIED', 'coordination.svc.io/v1', 'Lease', json),
  };
}

const lease = (n: number) => ({
  kind: 'Lease',
  apiVersion: 'coordination.svc.io/v1',
  metadata: {
    name: 'node-1',
    namespace: 'kube-node-lease',
    uid: '3f1c2a9e-1111-4222-8333-944445555666',
    creationTimestamp: '2026-11-27T23:00:00Z',
    ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: '8a1c2a9e-1111-4222-8333-944445555666' }],
    managedFields: [{ manager: 'nodeagent', operation: 'Update', apiVersion: 'coordination.k8s.io/v1', time: '2026-11-27T23:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:ownerReferences': { '.': {}, 'k:{"uid":"8a1c2a9e-1111-4222-8333-944445555666"}': {} } }, 'f:spec': { 'f:holderIdentity': {}, 'f:leaseDurationSeconds': {}, 'f:renewTime': {} } } }],
  },
  spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: `2026-11-27T23:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.000000Z` },
});

const trees = [await load('after', join(import.meta.dirname, '../..'))];
if (process.env['AB_BEFORE']) trees.push(await load('before', process.env['AB_BEFORE']));
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const results: Record<string, number[]> = {};
let revision = 100;
for (let round = 0; round < ROUNDS; round++) {
  for (const tree of round % 2 ? [...trees].reverse() : trees) {
    for (const withFrame of [false, true]) {
      const stats = await measure(
        function* () {
          yield {
            // A fresh write's bytes per iteration, made outside the measured part.
            [0]: () => tree.encode(lease(revision)),
            bench: (bytes: Uint8Array) => {
              const served = tree.decode(bytes, ++revision);
              if (withFrame) tree.frame(served.json);
            },
          };
        },
        { min_cpu_time: 200 * 1e6 },
      );
      (results[`${tree.name} ${withFrame ? 'decode + first protobuf frame' : 'decode'}`] ??= []).push(stats.avg);
    }
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [name, values] of Object.entries(results)) {
  console.log(`${name.padEnd(40)} median ${(median(values) / 1000).toFixed(2)} µs (rounds: ${values.map((v) => (v / 1000).toFixed(2)).join(', ')})`);
}
