// ephemeral-volume: a pod's generic ephemeral volume gets the claim `<pod>-<volume>` from its
// template, controlled by the pod; a claim of that name the pod does not own is left alone and
// the pod gets a Warning Event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, type Client } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { eventually, isGone } from '../support.js';
import { claim, eventReasons, getClaim, NS } from './fixtures.js';

let cluster: TestCluster;
let client: Client;

const podWithEphemeral = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS },
  spec: {
    containers: [{ name: 'c', image: 'busybox' }],
    volumes: [
      {
        name: 'scratch',
        ephemeral: {
          volumeClaimTemplate: {
            metadata: { labels: { kind: 'scratch' } },
            spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } },
          },
        },
      },
    ],
  },
});

beforeAll(async () => {
  cluster = await startTestCluster({ controllers: { controllers: ['ephemeral-volume-controller', 'garbage-collector-controller', 'persistentvolumeclaim-protection-controller', 'serviceaccount-controller'] } });
  client = cluster.client;
  await eventually(async () => (await client.get(builtin.serviceAccounts, 'default', { namespace: NS }).catch(() => undefined)) !== undefined, 'the default ServiceAccount');
});
afterAll(() => cluster.stop());

describe('ephemeral-volume', () => {
  it('makes the claim <pod>-<volume> from the template, owned by the pod, and it goes with the pod', async () => {
    const pod = await client.create(builtin.pods, podWithEphemeral('app') as never, { namespace: NS });
    await eventually(async () => !(await isGone(getClaim(client, 'app-scratch'))), 'the claim');
    const made = await getClaim(client, 'app-scratch');
    expect(made.metadata.labels).toEqual({ kind: 'scratch' });
    expect(made.spec.storageClassName).toBe('fast');
    expect(made.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'app', uid: pod.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    await client.delete(builtin.pods, 'app', { namespace: NS, gracePeriodSeconds: 0 });
    await eventually(async () => isGone(getClaim(client, 'app-scratch')), 'the claim collected with its pod');
  });

  it('never takes over a claim of that name the pod does not own: an Event says so', async () => {
    await client.create(builtin.persistentVolumeClaims, claim('squat-scratch', '1Gi'), { namespace: NS });
    await client.create(builtin.pods, podWithEphemeral('squat') as never, { namespace: NS });
    await eventually(async () => (await eventReasons(client, 'squat', 'Pod')).some((r) => r.includes('PVC squat-scratch was not created for pod default/squat (pod is not owner)')), 'the Warning');
    expect((await getClaim(client, 'squat-scratch')).metadata.ownerReferences).toBeUndefined();
  });
});
