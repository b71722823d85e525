/**
 * Encode and decode of a 2 KiB pod per codec, and a 10k-pod list per codec and view, through
 * the same functions the server uses (src/encoding). Prints markdown tables for docs/benchmarks.md.
 *
 *   npm run bench:encoding
 */
import { parse as parseYaml } from 'yaml';
import {
  PLAIN_JSON,
  codecOf,
  decodeCbor,
  decodeProtobuf,
  encodeCbor,
  encodeProtobuf,
  renderList,
  renderOptions,
  viewOptions,
  type JsonObject,
  type Representation,
} from '../../src/encoding/index.js';
import { builtinTypes } from '../../src/api/index.js';

const podType = builtinTypes.find((t) => t.group === '' && t.kind === 'Pod')!;

function pod(i: number): JsonObject {
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name: `web-7d9f8b6c5d-${String(i).padStart(5, '0')}`,
      namespace: 'default',
      uid: `5b8e2f4a-1c3d-4e5f-8a9b-${String(i).padStart(12, '0')}`,
      resourceVersion: String(1000 + i),
      generation: 1,
      creationTimestamp: '2026-11-23T10:20:30Z',
      labels: { app: 'web', tier: 'frontend', 'pod-template-hash': '7d9f8b6c5d' },
      annotations: { 'svc.io/created-by': 'deployment-controller' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f8b6c5d', uid: '0d1e2f3a-4b5c-6d7e-8f9a-0b1c2d3e4f5a', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      nodeName: `node-${i % 50}`,
      serviceAccountName: 'default',
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      containers: [
        {
          name: 'web',
          image: 'registry.example.com/team/web:1.27.3',
          ports: [{ containerPort: 8080, protocol: 'TCP', name: 'http' }],
          env: [{ name: 'MODE', value: 'production' }, { name: 'LOG_LEVEL', value: 'info' }],
          resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } },
          volumeMounts: [{ name: 'config', mountPath: '/etc/web', readOnly: true }],
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5, failureThreshold: 3 },
          imagePullPolicy: 'IfNotPresent',
        },
        { name: 'sidecar', image: 'registry.example.com/team/proxy:2.1.0', args: ['--listen=:9090', '--upstream=127.0.0.1:8080'], resources: { requests: { cpu: '50m', memory: '64Mi' } } },
      ],
      volumes: [{ name: 'config', configMap: { name: 'web-config' } }],
    },
    status: {
      phase: 'Running',
      hostIP: '10.0.0.12',
      podIP: `10.244.${i % 250}.${i % 200}`,
      startTime: '2026-11-23T10:20:31Z',
      qosClass: 'Burstable',
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: '2026-11-23T10:20:40Z' },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-11-23T10:20:40Z' },
      ],
      containerStatuses: [
        { name: 'web', ready: true, restartCount: 0, image: 'registry.example.com/team/web:1.27.3', imageID: 'registry.example.com/team/web@sha256:0123456789abcdef', containerID: 'containerd://abcdef0123456789', started: true, state: { running: { startedAt: '2026-11-23T10:20:35Z' } } },
      ],
    },
  };
}

/** Mean time of one call, after warming up, over at least `minMs`. */
function time(fn: () => unknown, minMs: number): number {
  for (let i = 0; i < 3; i++) fn();
  let runs = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs || runs < 5) {
    fn();
    runs++;
    elapsed = performance.now() - start;
  }
  return elapsed / runs;
}

const drain = (chunks: Iterable<Uint8Array>) => {
  let size = 0;
  for (const chunk of chunks) size += chunk.length;
  return size;
};
const us = (ms: number) => (ms * 1000).toFixed(1);

const one = pod(1);
const jsonBytes = Buffer.from(JSON.stringify(one));
const codecs: { name: string; encode: () => Uint8Array; decode: (b: Uint8Array) => unknown }[] = [
  { name: 'JSON', encode: () => Buffer.from(JSON.stringify(one)), decode: (b) => JSON.parse(Buffer.from(b).toString()) },
  { name: 'YAML', encode: () => codecOf('yaml').encode(one, false), decode: (b) => parseYaml(Buffer.from(b).toString()) },
  { name: 'protobuf', encode: () => encodeProtobuf(one), decode: (b) => decodeProtobuf(b) },
  { name: 'CBOR', encode: () => encodeCbor(one), decode: (b) => decodeCbor(b) },
];

console.log(`Pod: ${jsonBytes.length} bytes of JSON\n`);
console.log('| codec | size (bytes) | encode (µs) | decode (µs) |');
console.log('| --- | --- | --- | --- |');
for (const codec of codecs) {
  const bytes = codec.encode();
  console.log(`| ${codec.name} | ${bytes.length} | ${us(time(codec.encode, 500))} | ${us(time(() => codec.decode(bytes), 500))} |`);
}

const COUNT = 10_000;
const items = Array.from({ length: COUNT }, (_, i) => Buffer.from(JSON.stringify(pod(i))));
const metadata = { resourceVersion: '20000' };
const rep = (codec: Representation['codec'], view: Representation['view'] = 'Object', contentType = ''): Representation => ({ ...PLAIN_JSON, codec, view, contentType, viewGroup: 'meta.svc.io', viewVersion: 'v1' });
const list = (r: Representation, fresh: boolean) => () => {
  const page = fresh ? items.map((b) => Buffer.from(b)) : items;
  return drain(renderList(renderOptions(r, podType, 'v1', viewOptions(r, podType, true), false), metadata, page));
};
const cases: [string, Representation, boolean][] = [
  ['JSON (cached bytes, as served)', PLAIN_JSON, false],
  ['JSON Table', rep('json', 'Table'), false],
  ['JSON PartialObjectMetadataList', rep('json', 'PartialObjectMetadataList'), false],
  ['YAML', rep('yaml'), false],
  ['YAML Table', rep('yaml', 'Table'), false],
  ['protobuf, first read of each version', rep('protobuf'), true],
  ['protobuf, versions cached', rep('protobuf'), false],
  ['protobuf Table', rep('protobuf', 'Table'), false],
  ['protobuf PartialObjectMetadataList', rep('protobuf', 'PartialObjectMetadataList'), false],
  ['CBOR', rep('cbor'), false],
  ['CBOR Table', rep('cbor', 'Table'), false],
];

console.log(`\nList of ${COUNT} pods (${(items.reduce((s, b) => s + b.length, 0) / 1024 / 1024).toFixed(1)} MiB of JSON):\n`);
console.log('| codec and view | size (MiB) | time (ms) |');
console.log('| --- | --- | --- |');
for (const [name, r, fresh] of cases) {
  if (r === PLAIN_JSON) {
    // The server's plain JSON list: listChunks over the cached bytes (no encode).
    const { listChunks } = await import('../../src/apiserver/request/send-list.js');
    const run = () => drain(listChunks(podType, { resourceVersion: 20000 }, items));
    console.log(`| ${name} | ${(run() / 1024 / 1024).toFixed(1)} | ${time(run, 1000).toFixed(1)} |`);
    continue;
  }
  const run = list(r, fresh);
  console.log(`| ${name} | ${(run() / 1024 / 1024).toFixed(1)} | ${time(run, 1000).toFixed(1)} |`);
}
