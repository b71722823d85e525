import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { types } from 'node:util';
import { share } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_MIRROR_ANNOTATION, type Pod } from '../../../src/api/index.js';
import { builtin, InformerFactory } from '../../../src/client/index.js';
import { CONFIG_HASH_ANNOTATION, configuredSources, mirrorPods, podSources, SourcesReadiness, type PodUpdate } from '../../../src/nodeagent/index.js';
import { startClientTestServer, type ClientTestServer } from '../../client/support.js';
import { podYaml, Recorder, until } from './support.js';

const NODE = 'node-1';
let server: ClientTestServer;
let informers: InformerFactory;
let dir: string;
const recorders: Recorder<unknown>[] = [];

const busybox = (name: string, nodeName: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName, containers: [{ name: 'c', image: 'svc.local/busybox:latest' }] },
});

beforeEach(async () => {
  server = await startClientTestServer();
  informers = new InformerFactory(server.client);
  dir = mkdtempSync(join(tmpdir(), 'svc-static-'));
});
afterEach(async () => {
  for (const recorder of recorders.splice(0)) recorder.stop();
  informers.stop();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const record = <T,>(recorder: Recorder<T>) => (recorders.push(recorder as Recorder<unknown>), recorder);

describe('the API server source', () => {
  it('follows the pods bound to this node: ADD, UPDATE on deletionTimestamp, REMOVE when deleted', async () => {
    const { client } = server;
    await client.create(builtin.pods, busybox('mine', NODE), { namespace: 'default' });
    await client.create(builtin.pods, busybox('other', 'node-2'), { namespace: 'default' });
    const readiness = new SourcesReadiness(['api']);
    const recorder = record(new Recorder<PodUpdate>()).start(podSources({ nodeName: NODE, informers, readiness }));
    await until(() => recorder.values.length === 1, 'the ADD of the existing pod');
    expect(recorder.values[0]).toMatchObject({ type: 'ADD', source: 'api', pod: { metadata: { name: 'mine' } } });
    expect(readiness.allReady()).toBe(true);

    await client.create(builtin.pods, busybox('later', NODE), { namespace: 'default' });
    await until(() => recorder.values.length === 2, 'the ADD of a new pod');
    expect(recorder.values[1]!.pod.metadata.name).toBe('later');

    // A bound pod is deleted gracefully: first a deletionTimestamp (an UPDATE the workers act on)…
    await client.delete(builtin.pods, 'mine', { namespace: 'default' });
    await until(() => recorder.values.length === 3, 'the UPDATE with a deletionTimestamp');
    expect(recorder.values[2]!.type).toBe('UPDATE');
    expect(recorder.values[2]!.pod.metadata.deletionTimestamp).toBeDefined();
    // …then gone for good (what the workers do once the containers are stopped).
    await client.delete(builtin.pods, 'mine', { namespace: 'default', gracePeriodSeconds: 0 });
    await until(() => recorder.values.length === 4, 'the REMOVE');
    expect(recorder.values[3]).toMatchObject({ type: 'REMOVE', pod: { metadata: { name: 'mine' } } });
    expect(recorder.values.some((u) => u.pod.metadata.name === 'other')).toBe(false);
  });

  it('gives each pod decoded whole, without the managedFields the agent never reads', async () => {
    const { client } = server;
    const created = await client.create(builtin.pods, { ...busybox('whole', NODE), metadata: { name: 'whole', namespace: 'default', labels: { app: 'whole' } } }, { namespace: 'default' });
    expect(created.metadata.managedFields?.length).toBeGreaterThan(0);
    const recorder = record(new Recorder<PodUpdate>()).start(podSources({ nodeName: NODE, informers, readiness: new SourcesReadiness(['api']) }));
    await until(() => recorder.values.length === 1, 'the ADD');
    const pod = recorder.values[0]!.pod;
    // A plain object, not a view over the message that decodes on read and keeps the bytes beside.
    expect(types.isProxy(pod)).toBe(false);
    expect(types.isProxy(pod.metadata)).toBe(false);
    expect(pod.metadata.managedFields).toBeUndefined();
    expect(pod.metadata).toMatchObject({ name: 'whole', uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion, labels: { app: 'whole' } });
    expect(pod.spec.containers).toEqual(created.spec.containers);
  });

  it('rejects a readiness that waits for other sources than the configured ones', () => {
    expect(configuredSources({ informers, podManifestPath: dir })).toEqual(['file', 'api']);
    expect(() => podSources({ nodeName: NODE, informers, readiness: new SourcesReadiness(['file']) })).toThrow(RangeError);
  });
});

describe('mirror pods', () => {
  it('creates, recreates, replaces and removes the mirror of a static pod; the API source ignores mirrors', async () => {
    const { client } = server;
    const node = await client.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
    const file = join(dir, 'web.yaml');
    const uid = 'c0ffee00-0000-4000-8000-000000000001';
    writeFileSync(file, podYaml('web', 'img:1', `  uid: ${uid}\n  labels: {app: web}\n`));

    const readiness = new SourcesReadiness(['file', 'api']);
    const updates = podSources({ nodeName: NODE, informers, podManifestPath: dir, fileCheckFrequencyMs: 50, watchManifestPath: false, readiness }).pipe(share());
    const seen = record(new Recorder<PodUpdate>()).start(updates);
    record(new Recorder<unknown>()).start(mirrorPods({ client, informers, nodeName: NODE, updates, readiness }));
    const mirror = () => informers.informer(builtin.pods, { fieldSelector: `spec.nodeName=${NODE}` }).store.get('default/web-node-1');

    // Created.
    await until(() => mirror() !== undefined, 'the mirror pod');
    const first = await client.get(builtin.pods, 'web-node-1', { namespace: 'default' });
    const hash = seen.values[0]!.pod.metadata.annotations?.[CONFIG_HASH_ANNOTATION];
    expect(first.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION]).toBe(hash);
    expect(first.metadata.labels).toEqual({ app: 'web' });
    expect(first.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: NODE, uid: node.metadata.uid, controller: true }]);
    expect(first.spec.nodeName).toBe(NODE);
    expect(first.metadata.uid).not.toBe(uid); // the API server's own
    // The ServiceAccount admission leaves a mirror alone: no token volume injected.
    expect(first.spec.volumes).toBeUndefined();

    // Deleted by a user (graceful, as kubectl does): recreated.
    await client.delete(builtin.pods, 'web-node-1', { namespace: 'default' });
    await until(() => mirror() !== undefined && mirror()!.metadata.uid !== first.metadata.uid && mirror()!.metadata.deletionTimestamp === undefined, 'a new mirror');

    // Made stale by hand (its hash differs): replaced.
    const second = mirror()!;
    await client.update(builtin.pods, { ...second, metadata: { ...second.metadata, annotations: { ...second.metadata.annotations, [CONFIG_MIRROR_ANNOTATION]: 'stale' } } }, { namespace: 'default' });
    await until(() => mirror() !== undefined && mirror()!.metadata.uid !== second.metadata.uid && mirror()!.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION] === hash, 'the stale mirror replaced');

    // The manifest changes (same UID, new hash): the static pod is UPDATEd and its mirror replaced.
    writeFileSync(file, podYaml('web', 'img:2', `  uid: ${uid}\n  labels: {app: web}\n`));
    await until(() => seen.values.some((u) => u.type === 'UPDATE'), 'the UPDATE of the static pod');
    const newHash = seen.values.find((u) => u.type === 'UPDATE')!.pod.metadata.annotations?.[CONFIG_HASH_ANNOTATION];
    await until(() => mirror()?.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION] === newHash, 'the mirror of the new version');
    expect(mirror()!.spec.containers[0]!.image).toBe('img:2');

    // The API source never offered the mirror as a pod to run.
    expect(seen.values.every((u) => u.source === 'file')).toBe(true);

    // The manifest removed: the mirror goes.
    unlinkSync(file);
    await until(() => seen.values.some((u) => u.type === 'REMOVE'), 'the REMOVE of the static pod');
    await until(() => mirror() === undefined, 'the mirror deleted');
    await expect(client.get(builtin.pods, 'web-node-1', { namespace: 'default' })).rejects.toMatchObject({ reason: 'NotFound' });
  });

  it('deletes an orphaned mirror once the static sources are seen, and never touches a user pod of the same name', async () => {
    const { client } = server;
    const node = await client.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
    const orphan: Pod = {
      ...busybox('gone-node-1', NODE),
      metadata: { name: 'gone-node-1', namespace: 'default', annotations: { [CONFIG_MIRROR_ANNOTATION]: 'old' }, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: NODE, uid: node.metadata.uid!, controller: true }] },
    };
    await client.create(builtin.pods, orphan, { namespace: 'default' });
    await client.create(builtin.pods, busybox('taken-node-1', NODE), { namespace: 'default' });
    writeFileSync(join(dir, 'taken.yaml'), podYaml('taken'));

    const readiness = new SourcesReadiness(['file', 'api']);
    const updates = podSources({ nodeName: NODE, informers, podManifestPath: dir, fileCheckFrequencyMs: 50, watchManifestPath: false, readiness }).pipe(share());
    record(new Recorder<PodUpdate>()).start(updates);
    const results = record(new Recorder<{ key: string; type: string }>()).start(mirrorPods({ client, informers, nodeName: NODE, updates, readiness }));
    const pods = informers.informer(builtin.pods, { fieldSelector: `spec.nodeName=${NODE}` }).store;
    await until(() => pods.get('default/gone-node-1') === undefined, 'the orphan deleted');
    await until(() => results.values.some((r) => r.key === 'default/taken-node-1'), 'a sync of the taken name');
    const user = pods.get('default/taken-node-1')!;
    expect(user.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION]).toBeUndefined();
    expect(results.values.filter((r) => r.key === 'default/taken-node-1').every((r) => r.type === 'awaitChange')).toBe(true);
  });
});
