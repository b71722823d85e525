// The volume binding's pre-bind writes a claim's selected node, then waits on the scheduler's claim
// cache for the claim to be bound or given back (its provisioner removes the annotation). The cache
// gets that write's event after the patch's answer — a later frame, up to --watch-write-interval
// later for a busy watch — so the version it holds at first may be the one before the write, with
// no annotation: that is no give-back. Here the test feeds the caches (a real API server takes the
// writes), so the cache lags the write for as long as the test says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIND_COMPLETED_ANNOTATION, SELECTED_NODE_ANNOTATION, type Node, type PersistentVolume, type PersistentVolumeClaim, type Pod, type StorageClass } from '../../../src/api/index.js';
import { builtin, CacheWriter, Client, type CacheReader } from '../../../src/client/index.js';
import { VolumeBinding } from '../../../controllers/scheduler/volume-binding.js';
import { startTestServer, TOKEN, type TestServer } from '../../apiserver/harness.js';
import { node, pod, until } from './support.js';

describe("volume binding's pre-bind and its own write", () => {
  let server: TestServer;
  let client: Client;
  const claims = new CacheWriter<PersistentVolumeClaim>();
  const classes = new CacheWriter<StorageClass>();
  const volumes = new CacheWriter<PersistentVolume>();
  const nodes = new CacheWriter<Node>();
  /** Reads of the claim cache: the pre-bind reads a claim once before its write, then at each look of its wait. */
  let claimReads = 0;
  const countedClaims: CacheReader<PersistentVolumeClaim> = {
    ...claims.reader,
    get: (key) => {
      claimReads++;
      return claims.reader.get(key);
    },
  };
  let binding: VolumeBinding;

  beforeAll(async () => {
    server = await startTestServer('memory', { listen: true });
    client = new Client({ server: server.url!, token: TOKEN });
    classes.upsert(await client.create(builtin.storageClasses, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'later' }, provisioner: 'example.com/external', volumeBindingMode: 'WaitForFirstConsumer' }));
    nodes.upsert(await client.create(builtin.nodes, node('n1')));
    binding = new VolumeBinding({ claims: countedClaims, volumes: volumes.reader, classes: classes.reader, nodes: nodes.reader }, client);
  });
  afterAll(async () => {
    binding.close();
    await client.destroy();
    await server.close();
  });

  /** Creates the claim (cached as created), starts the pre-bind of a pod using it on n1, and waits until its wait has looked once at the cache. */
  async function preBindWaiting(name: string): Promise<{ outcome: Promise<string> }> {
    claims.upsert(
      await client.create(
        builtin.persistentVolumeClaims,
        { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'later', resources: { requests: { storage: '1Gi' } } } } as never,
        { namespace: 'default' },
      ),
    );
    const user: Pod = { ...pod(`${name}-user`), spec: { ...pod(`${name}-user`).spec, volumes: [{ name: 'data', persistentVolumeClaim: { claimName: name } }] } };
    const reads = claimReads;
    const outcome = binding.preBind(user, 'n1').then(
      () => 'bound',
      (error: Error) => error.message,
    );
    // The second read is the wait's first look, after the patch's answer: the cache still has the claim as created.
    await until(() => claimReads >= reads + 2, 'the pre-bind to wait on the claim cache');
    // In an object: an async function's answer that is a promise would be awaited with it.
    return { outcome };
  }

  it('waits for the cache to hold its selected-node annotation: the version before it gives nothing back', async () => {
    const { outcome } = await preBindWaiting('slow');
    const annotated = await client.get(builtin.persistentVolumeClaims, 'slow', { namespace: 'default' });
    expect(annotated.metadata.annotations?.[SELECTED_NODE_ANNOTATION]).toBe('n1');
    // The provisioner's volume is bound to it: the cache's next version of the claim is the bound one.
    claims.upsert({ ...annotated, metadata: { ...annotated.metadata, annotations: { ...annotated.metadata.annotations, [BIND_COMPLETED_ANNOTATION]: 'yes' } }, spec: { ...annotated.spec, volumeName: 'made-for-slow' } });
    binding.changed();
    expect(await outcome).toBe('bound');
  });

  it('still fails the binding when a version after its write has no annotation: the provisioner gave the node back', async () => {
    const { outcome } = await preBindWaiting('returned');
    claims.upsert(await client.get(builtin.persistentVolumeClaims, 'returned', { namespace: 'default' }));
    binding.changed();
    claims.upsert(await client.patch(builtin.persistentVolumeClaims, 'returned', { metadata: { annotations: { [SELECTED_NODE_ANNOTATION]: null } } }, { type: 'merge', namespace: 'default' }));
    binding.changed();
    expect(await outcome).toBe('persistentvolumeclaim "returned" was given back by its provisioner');
  });
});
