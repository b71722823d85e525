import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobuf, encodeProtobuf, type JsonObject } from '../../src/encoding/index.js';
import { startTestServer, TOKEN, type TestServer } from '../apiserver/harness.js';
import { podSpec, selector } from './support/full-objects.js';

/**
 * Objects using the parts of their kinds that protobuf used to drop (affinity, security contexts,
 * lifecycle hooks, projected and CSI volumes, HPA metrics, Job failure policies, ...), created
 * over JSON and read back over protobuf: the two forms must be the same object.
 */

const PB = 'application/vnd.svc.protobuf';
const auth = { authorization: `Bearer ${TOKEN}` };
const TIME = '2026-11-23T10:20:30Z';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'full', labels: { app: 'web' } }, spec: { ...podSpec, automountServiceAccountToken: false } }; // no generated token volume: two pods compare equal

const hpa = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
      { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '100' } } },
      { type: 'External', external: { metric: { name: 'queue', selector }, target: { type: 'Value', value: '30' } } },
      { type: 'ContainerResource', containerResource: { name: 'memory', container: 'web', target: { type: 'AverageValue', averageValue: '500Mi' } } },
    ],
    behavior: {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
    },
  },
};

const job = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'indexed' },
  spec: {
    completions: 4,
    parallelism: 2,
    completionMode: 'Indexed',
    backoffLimitPerIndex: 1,
    podFailurePolicy: {
      rules: [
        { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
        { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      ],
    },
    successPolicy: { rules: [{ succeededIndexes: '0-2', succeededCount: 2 }] },
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } },
  },
};

const pv = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'csi-pv' },
  spec: {
    capacity: { storage: '10Gi' },
    accessModes: ['ReadWriteOnce'],
    persistentVolumeReclaimPolicy: 'Retain',
    csi: {
      driver: 'csi.example.com',
      volumeHandle: 'vol-1',
      fsType: 'ext4',
      volumeAttributes: { tier: 'gold' },
      nodeStageSecretRef: { name: 's', namespace: 'kube-system' },
      controllerExpandSecretRef: { name: 'x', namespace: 'kube-system' },
    },
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } },
    mountOptions: ['noatime'],
  },
};

/** Paths of each case that must survive the JSON write, so the protobuf comparison is not vacuous. */
const KEPT: Record<string, string[]> = {
  full: [
    'spec.affinity',
    'spec.securityContext',
    'spec.topologySpreadConstraints',
    'spec.dnsConfig',
    'spec.hostAliases',
    'spec.tolerations',
    'spec.volumes.0.projected',
    'spec.containers.0.lifecycle',
    'spec.containers.0.securityContext',
    'spec.containers.0.envFrom',
    'spec.containers.0.env',
    'spec.containers.0.startupProbe',
  ],
  web: ['spec.metrics', 'spec.behavior'],
  indexed: ['spec.podFailurePolicy', 'spec.successPolicy'],
  'csi-pv': ['spec.csi.driver', 'spec.csi.volumeHandle', 'spec.nodeAffinity'],
};

const valueAt = (object: JsonObject, path: string): unknown =>
  path.split('.').reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as JsonObject)[key] : undefined), object);

const cases: [string, string, JsonObject][] = [
  ['a Pod', '/api/v1/namespaces/default/pods', pod],
  ['an HPA with metrics and behavior', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', hpa],
  ['a Job with failure and success policies', '/apis/batch/v1/namespaces/default/jobs', job],
  ['a CSI PersistentVolume with node affinity', '/api/v1/persistentvolumes', pv],
];

describe('objects created over JSON read back identically over protobuf', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory');
  });
  afterAll(() => s.close());

  it.each(cases)('%s', async (_name, collection, object) => {
    const created = await s.call('POST', collection, object);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const name = String((object['metadata'] as JsonObject)['name']);
    const json = await s.call('GET', `${collection}/${name}`);
    // The parts that protobuf used to drop are stored (svc's schemas keep them), with the kind's
    // defaults added where they were unset (a probe's timings).
    for (const path of KEPT[name] ?? []) expect(valueAt(json.body as JsonObject, path), path).toMatchObject(valueAt(object, path) as object);
    const pb = await s.app.inject({ method: 'GET', url: `${collection}/${name}`, headers: { ...auth, accept: PB } });
    expect(pb.statusCode).toBe(200);
    expect(decodeProtobuf(pb.rawPayload)).toEqual(json.body);
    const list = await s.app.inject({ method: 'GET', url: collection, headers: { ...auth, accept: PB } });
    // List items carry no kind and apiVersion in protobuf (the list's envelope names them).
    const { kind: _kind, apiVersion: _apiVersion, ...item } = json.body as JsonObject;
    expect((decodeProtobuf(list.rawPayload)['items'] as JsonObject[])[0]).toEqual(item);
  });

  it('a Pod sent as a protobuf body is stored with every field', async () => {
    const body = encodeProtobuf({ ...pod, metadata: { name: 'from-protobuf', labels: { app: 'web' } } });
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/namespaces/default/pods',
      headers: { ...auth, 'content-type': PB, accept: 'application/json' },
      payload: Buffer.from(body),
    });
    expect(res.statusCode, res.body).toBe(201);
    const stored = await s.call('GET', '/api/v1/namespaces/default/pods/from-protobuf');
    const fromJson = await s.call('GET', '/api/v1/namespaces/default/pods/full');
    expect(stored.body.spec).toEqual(fromJson.body.spec);
  });

  it('a Pod with every status part, written over JSON, reads back over protobuf', async () => {
    const status = {
      phase: 'Running',
      observedGeneration: 1,
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: TIME, observedGeneration: 1 }],
      hostIP: '10.0.0.1',
      hostIPs: [{ ip: '10.0.0.1' }],
      podIP: '10.1.0.5',
      podIPs: [{ ip: '10.1.0.5' }],
      startTime: TIME,
      qosClass: 'Burstable',
      resize: 'InProgress',
      resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'full-gpu-x' }],
      containerStatuses: [
        {
          name: 'web',
          ready: true,
          started: true,
          restartCount: 1,
          image: 'nginx:1.27',
          imageID: 'sha256:abc',
          containerID: 'containerd://1',
          state: { running: { startedAt: TIME } },
          lastState: { terminated: { exitCode: 137, signal: 9, reason: 'OOMKilled', startedAt: TIME, finishedAt: TIME } },
          allocatedResources: { cpu: '250m' },
          resources: { requests: { cpu: '250m' } },
          volumeMounts: [{ name: 'projected', mountPath: '/etc/projected', readOnly: true, recursiveReadOnly: 'Enabled' }],
          user: { linux: { uid: 1000, gid: 3000, supplementalGroups: [4000] } },
          allocatedResourcesStatus: [{ name: 'claim:gpu/one', resources: [{ resourceID: 'gpu-0', health: 'Healthy' }] }],
          stopSignal: 'SIGTERM',
        },
      ],
      ephemeralContainerStatuses: [{ name: 'debug', ready: false, restartCount: 0, image: 'busybox', imageID: 'sha256:def', state: { waiting: { reason: 'Pending' } } }],
    };
    // A create drops status (as Kubernetes does): it is written through the status subresource.
    const created = await s.call('POST', '/api/v1/namespaces/default/pods', { ...pod, metadata: { name: 'with-status' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const written = await s.call('PUT', '/api/v1/namespaces/default/pods/with-status/status', { ...created.body, status });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    const json = await s.call('GET', '/api/v1/namespaces/default/pods/with-status');
    for (const path of ['phase', 'conditions', 'hostIPs', 'podIPs', 'startTime', 'qosClass', 'containerStatuses.0.state', 'containerStatuses.0.lastState']) {
      expect(valueAt(json.body.status as JsonObject, path), path).toEqual(valueAt(status, path));
    }
    const pb = await s.app.inject({ method: 'GET', url: '/api/v1/namespaces/default/pods/with-status', headers: { ...auth, accept: PB } });
    expect(decodeProtobuf(pb.rawPayload)).toEqual(json.body);
  });
});
