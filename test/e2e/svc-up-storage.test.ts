// Storage against `svc up` with real containers: the cluster ships a default host-path StorageClass
// (`local-path`, WaitForFirstConsumer). A pod writes to its claim, is deleted, and a new pod on the
// same claim reads the data back; a StatefulSet with a volumeClaimTemplate gets a bound claim per
// pod and its pods run; deleting a claim of the Delete class removes its volume and directory.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../controllers/support.js';
import { kubectl, requireKubectl } from '../support/kubectl.js';
import { spawnUp, type UpProcess } from '../support/svc-up.js';

// Short: containerd's socket lives under it and unix socket paths are capped at 107 bytes.
const dir = mkdtempSync('/tmp/svc-e2e-pv-');
const config = join(dir, 'admin.svcconfig');
let up: UpProcess | undefined;
const k = (args: readonly string[], stdin?: string) => kubectl(config, args, stdin);
const jsonpath = async (args: readonly string[], path: string) => (await k([...args, '-o', `jsonpath=${path}`])).stdout;

const claim = `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data }
spec:
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 64Mi } }
`;

/** A busybox pod (svc's local image: never pulled) on claim `data`, running `script`. */
const pod = (name: string, script: string) => `
apiVersion: v1
kind: Pod
metadata: { name: ${name} }
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
    - name: c
      image: svc.local/busybox:latest
      imagePullPolicy: IfNotPresent
      command: ["sh", "-c", ${JSON.stringify(script)}]
      volumeMounts: [{ name: data, mountPath: /data }]
  volumes:
    - name: data
      persistentVolumeClaim: { claimName: data }
`;

const statefulSet = `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: web }
spec:
  replicas: 2
  serviceName: web
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: c
          image: svc.local/busybox:latest
          imagePullPolicy: IfNotPresent
          command: ["sh", "-c", "hostname > /www/name; sleep 3600"]
          volumeMounts: [{ name: www, mountPath: /www }]
  volumeClaimTemplates:
    - metadata: { name: www }
      spec:
        accessModes: [ReadWriteOnce]
        resources: { requests: { storage: 16Mi } }
`;

beforeAll(async () => {
  requireKubectl();
  up = spawnUp(dir);
  await up.line((line) => line.startsWith('  kubectl'));
  await eventually(async () => (await jsonpath(['get', 'nodes'], '{.items[0].status.conditions[?(@.type=="Ready")].status}')) === 'True', 'the node to be Ready', 60_000);
  await eventually(async () => (await jsonpath(['get', 'serviceaccount', 'default'], '{.metadata.name}')) === 'default', 'the default ServiceAccount', 30_000);
}, 120_000);

afterAll(async () => {
  if (up && up.child.exitCode === null) {
    up.child.kill('SIGINT');
    const stopped = await Promise.race([up.exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 60_000))]);
    if (!stopped) {
      up.child.kill('SIGKILL');
      await up.exited;
    }
  }
  rmSync(dir, { recursive: true, force: true });
}, 90_000);

describe('storage under svc up', () => {
  it('ships local-path as the default class, waiting for the first consumer', async () => {
    await eventually(async () => (await jsonpath(['get', 'storageclass', 'local-path'], '{.provisioner}')) === 'svc.io/host-path', 'the local-path class', 30_000);
    const sc = JSON.parse((await k(['get', 'storageclass', 'local-path', '-o', 'json'])).stdout) as { metadata: { annotations: Record<string, string> }; volumeBindingMode: string };
    expect(sc.metadata.annotations['storageclass.kubernetes.io/is-default-class']).toBe('true');
    expect(sc.volumeBindingMode).toBe('WaitForFirstConsumer');
  }, 60_000);

  it('keeps a claim unbound until a pod uses it, then a new pod reads what the first wrote', async () => {
    expect((await k(['apply', '-f', '-'], claim)).code).toBe(0);
    // The admission plugin gave it the default class; nothing uses it yet, so it waits.
    expect(await jsonpath(['get', 'pvc', 'data'], '{.spec.storageClassName}')).toBe('local-path');
    await eventually(async () => (await jsonpath(['get', 'pvc', 'data'], '{.status.phase}')) === 'Pending', 'the claim Pending');
    expect(await jsonpath(['get', 'pvc', 'data'], '{.spec.volumeName}')).toBe('');

    expect((await k(['apply', '-f', '-'], pod('writer', 'echo kept-across-pods > /data/note'))).code).toBe(0);
    await eventually(async () => (await jsonpath(['get', 'pod', 'writer'], '{.status.phase}')) === 'Succeeded', 'the writer to finish', 120_000);
    const node = await jsonpath(['get', 'pod', 'writer'], '{.spec.nodeName}');
    expect(await jsonpath(['get', 'pvc', 'data'], '{.status.phase}')).toBe('Bound');
    expect(await jsonpath(['get', 'pvc', 'data'], '{.metadata.annotations.volume\\.kubernetes\\.io/selected-node}')).toBe(node);
    const volume = await jsonpath(['get', 'pvc', 'data'], '{.spec.volumeName}');
    expect(await jsonpath(['get', 'pv', volume], '{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}')).toBe(node);
    expect(await jsonpath(['get', 'pv', volume], '{.status.phase}')).toBe('Bound');

    expect((await k(['delete', 'pod', 'writer', '--wait=true'])).code).toBe(0);
    expect((await k(['apply', '-f', '-'], pod('reader', 'cat /data/note'))).code).toBe(0);
    try {
      await eventually(async () => (await jsonpath(['get', 'pod', 'reader'], '{.status.phase}')) === 'Succeeded', 'the reader to finish', 60_000);
    } catch (e) {
      console.log((await k(['describe', 'pod', 'reader'])).stdout, (await k(['get', 'events'])).stdout, up?.stderr.join('').slice(-5000));
      throw e;
    }
    expect((await k(['logs', 'reader'])).stdout.trim()).toBe('kept-across-pods');
  }, 300_000);

  it('deletes the volume and its directory with the claim (reclaim policy Delete)', async () => {
    const volume = await jsonpath(['get', 'pvc', 'data'], '{.spec.volumeName}');
    const path = await jsonpath(['get', 'pv', volume], '{.spec.hostPath.path}');
    expect(path.startsWith(join(dir, 'storage'))).toBe(true);
    expect(existsSync(path)).toBe(true);
    // pvc-protection holds the claim while the reader pod (finished, so no longer using it) exists: it goes at once.
    expect((await k(['delete', 'pod', 'reader', '--wait=true'])).code).toBe(0);
    expect((await k(['delete', 'pvc', 'data', '--wait=true', '--timeout=60s'])).code).toBe(0);
    await eventually(async () => (await k(['get', 'pv', volume])).code !== 0, 'the volume deleted', 60_000);
    expect(existsSync(path)).toBe(false);
  }, 120_000);

  it('mounts a generic ephemeral volume: its claim <pod>-<volume> is made, bound and used', async () => {
    const manifest = `
apiVersion: v1
kind: Pod
metadata: { name: scratch }
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
    - name: c
      image: svc.local/busybox:latest
      imagePullPolicy: IfNotPresent
      command: ["sh", "-c", "echo in-ephemeral > /scratch/f && cat /scratch/f"]
      volumeMounts: [{ name: work, mountPath: /scratch }]
  volumes:
    - name: work
      ephemeral:
        volumeClaimTemplate:
          spec:
            accessModes: [ReadWriteOnce]
            resources: { requests: { storage: 8Mi } }
`;
    expect((await k(['apply', '-f', '-'], manifest)).code).toBe(0);
    await eventually(async () => (await jsonpath(['get', 'pod', 'scratch'], '{.status.phase}')) === 'Succeeded', 'the pod to finish', 120_000);
    expect((await k(['logs', 'scratch'])).stdout.trim()).toBe('in-ephemeral');
    expect(await jsonpath(['get', 'pvc', 'scratch-work'], '{.status.phase}')).toBe('Bound');
    expect(await jsonpath(['get', 'pvc', 'scratch-work'], '{.metadata.ownerReferences[0].name}')).toBe('scratch');
    // The claim goes with its pod (garbage collector), and its volume with the claim (Delete).
    const volume = await jsonpath(['get', 'pvc', 'scratch-work'], '{.spec.volumeName}');
    expect((await k(['delete', 'pod', 'scratch', '--wait=true'])).code).toBe(0);
    await eventually(async () => (await k(['get', 'pvc', 'scratch-work'])).code !== 0 && (await k(['get', 'pv', volume])).code !== 0, 'claim and volume gone', 60_000);
  }, 240_000);

  it('runs a StatefulSet whose pods get bound claims from its volumeClaimTemplate', async () => {
    expect((await k(['apply', '-f', '-'], statefulSet)).code).toBe(0);
    const status = await k(['rollout', 'status', 'statefulset/web', '--timeout=180s']);
    expect(status.code, status.stderr + status.stdout).toBe(0);
    for (const name of ['www-web-0', 'www-web-1']) {
      expect(await jsonpath(['get', 'pvc', name], '{.status.phase}')).toBe('Bound');
      expect(await jsonpath(['get', 'pvc', name], '{.spec.storageClassName}')).toBe('local-path');
    }
    await eventually(async () => (await k(['exec', 'web-1', '--', 'cat', '/www/name'])).stdout.trim() === 'web-1', 'web-1 writing its name to its claim');
  }, 240_000);
});
