// CPU per protobuf watch frame of a fresh pod version (a bench:endpointslice pod: ~1.8 KB, three
// managedFields entries): encoded from a parse of its JSON bytes (before), or from the writer's
// object handed over with `knownObjectOf` (now), in alternating rounds of one process.
//   node --import tsx bench/encoding/watch-frame-known-object.ts
import { knownObjectOf } from '../../src/encoding/index.js';
import { protobufEventFrame } from '../../src/encoding/protobuf/envelope.js';
const pod = (i: number) => ({
  kind: 'Pod', apiVersion: 'v1',
  metadata: { resourceVersion: String(1000 + i), name: `p-${i}`, namespace: 'bench', uid: '3f1c2a9e-1111-4222-8333-944445555666', creationTimestamp: '2026-11-27T17:00:00Z', labels: { app: 'big' },
    managedFields: [
      { manager: 'bench-setup', operation: 'Update', apiVersion: 'v1', time: '2026-11-27T17:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
      { manager: 'bench-setup', operation: 'Update', apiVersion: 'v1', time: '2026-11-27T17:00:00Z', fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:phase': {}, 'f:podIP': {}, 'f:podIPs': { '.': {}, 'k:{"ip":"10.64.0.1"}': { '.': {}, 'f:ip': {} } } } } },
      { manager: 'flipper', operation: 'Update', apiVersion: 'v1', time: '2026-11-27T17:00:01Z', fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } } } } },
    ] },
  spec: { containers: [{ name: 'c', image: 'busybox', imagePullPolicy: 'Always', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }], restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', serviceAccountName: 'default', serviceAccount: 'default', securityContext: {}, schedulerName: 'default-scheduler', enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority', priority: 0,
    tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }] },
  status: { phase: 'Running', podIP: '10.64.0.1', podIPs: [{ ip: '10.64.0.1' }], conditions: [{ type: 'Ready', status: i % 2 ? 'True' : 'False' }], qosClass: 'BestEffort' },
});
const N = 5000;
const round = (known: boolean) => {
  const items = Array.from({ length: N }, (_, i) => { const o = pod(i); return { o, json: Buffer.from(JSON.stringify(o)) }; });
  const start = process.cpuUsage();
  for (const { o, json } of items) { if (known) knownObjectOf(json, o); protobufEventFrame('MODIFIED', 'v1', 'Pod', json); }
  const { user, system } = process.cpuUsage(start);
  return (user + system) / N;
};
const res: { parse: number[]; known: number[] } = { parse: [], known: [] };
for (let r = 0; r < 12; r++) { res.parse.push(round(false)); res.known.push(round(true)); }
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
console.log(`bytes ${JSON.stringify(pod(1)).length}; µs CPU per frame, median of 12 alternating rounds of ${N}: parse ${med(res.parse).toFixed(1)} (least ${Math.min(...res.parse).toFixed(1)}), known ${med(res.known).toFixed(1)} (least ${Math.min(...res.known).toFixed(1)})`);
