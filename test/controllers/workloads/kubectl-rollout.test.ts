// kubectl's rollout commands and `kubectl scale` against a real svc-apiserver running the
// Deployment and ReplicaSet loops, with the test making the pods Ready (no node runs them):
// status, history, undo (kubectl 1.32 rolls back client-side by patching the template from the
// old ReplicaSet, so the controller sees an old template come back), restart, pause, resume.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client } from '../../../src/client/index.js';
import { deploymentController, replicaSetController } from '../../../controllers/index.js';
import { kubectl, useKubectlServer } from '../../support/kubectl.js';
import { eventually, loopHarness, type LoopHarness } from '../support.js';
import { autoReady, createNamespace, livePods } from './replica-fixtures.js';

const NS = 'rollout';
const k = useKubectlServer('svc-kubectl-rollout-');
let client: Client;
let loop: LoopHarness;
let stopReady: () => void;

const run = async (...args: string[]) => {
  const result = await kubectl(k.config, ['-n', NS, ...args]);
  return result;
};
const ok = async (...args: string[]) => {
  const result = await run(...args);
  expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
};
const image = async () => (await client.get(builtin.deployments, 'web', { namespace: NS })).spec.template.spec.containers[0]!.image;

const MANIFEST = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
        - name: c
          image: busybox:1.35
`;

beforeAll(async () => {
  client = await Client.fromSvcconfig(k.config);
  await createNamespace(client, NS);
  stopReady = autoReady(client, NS, Date.now);
  loop = loopHarness(client);
  loop.run(replicaSetController(loop.ctx));
  loop.run(deploymentController(loop.ctx));
});
afterAll(async () => {
  loop?.stop();
  stopReady?.();
  await client?.destroy();
});

describe('kubectl rollout and scale', () => {
  it('rollout status waits for the first rollout and reports success', async () => {
    const applied = await kubectl(k.config, ['-n', NS, 'apply', '-f', '-'], MANIFEST);
    expect(applied.code, applied.stderr).toBe(0);
    expect(await ok('rollout', 'status', 'deployment/web', '--timeout=60s')).toContain('deployment "web" successfully rolled out');
  });

  it('set image rolls to revision 2; history lists both revisions', async () => {
    await ok('set', 'image', 'deployment/web', 'c=busybox:1.36');
    expect(await ok('rollout', 'status', 'deployment/web', '--timeout=60s')).toContain('successfully rolled out');
    const history = await ok('rollout', 'history', 'deployment/web');
    expect(history).toMatch(/^1\s/m);
    expect(history).toMatch(/^2\s/m);
    expect(await ok('rollout', 'history', 'deployment/web', '--revision=2')).toContain('busybox:1.36');
  });

  it('rollout undo goes back to the previous template as revision 3', async () => {
    expect(await ok('rollout', 'undo', 'deployment/web')).toContain('rolled back');
    expect(await image()).toBe('busybox:1.35');
    expect(await ok('rollout', 'status', 'deployment/web', '--timeout=60s')).toContain('successfully rolled out');
    const history = await ok('rollout', 'history', 'deployment/web');
    expect(history).toMatch(/^2\s/m);
    expect(history).toMatch(/^3\s/m);
    expect(history).not.toMatch(/^1\s/m);
    const pods = await livePods(client, NS, 'app=web');
    expect(pods.map((p) => p.spec.containers[0]!.image)).toEqual(['busybox:1.35', 'busybox:1.35', 'busybox:1.35']);
    expect((await ok('rollout', 'undo', 'deployment/web', '--to-revision=2'))).toContain('rolled back');
    expect(await image()).toBe('busybox:1.36');
    expect(await ok('rollout', 'status', 'deployment/web', '--timeout=60s')).toContain('successfully rolled out');
  });

  it('rollout restart replaces every pod', async () => {
    const before = new Set((await livePods(client, NS, 'app=web')).map((p) => p.metadata.uid));
    await ok('rollout', 'restart', 'deployment/web');
    expect(await ok('rollout', 'status', 'deployment/web', '--timeout=60s')).toContain('successfully rolled out');
    await eventually(async () => (await livePods(client, NS, 'app=web')).length === 3, 'three pods');
    expect((await livePods(client, NS, 'app=web')).filter((p) => before.has(p.metadata.uid))).toEqual([]);
  });

  it('rollout pause holds a template change; resume rolls it out', async () => {
    await ok('rollout', 'pause', 'deployment/web');
    await ok('set', 'image', 'deployment/web', 'c=busybox:1.37');
    await eventually(async () => (await client.get(builtin.deployments, 'web', { namespace: NS })).status?.conditions?.some((c) => c.reason === 'DeploymentPaused') === true, 'paused condition');
    const undo = await run('rollout', 'undo', 'deployment/web');
    expect(undo.code).not.toBe(0);
    expect(undo.stderr).toContain('paused');
    expect((await livePods(client, NS, 'app=web')).every((p) => p.spec.containers[0]!.image !== 'busybox:1.37')).toBe(true);
    await ok('rollout', 'resume', 'deployment/web');
    expect(await ok('rollout', 'status', 'deployment/web', '--timeout=60s')).toContain('successfully rolled out');
    expect((await livePods(client, NS, 'app=web')).map((p) => p.spec.containers[0]!.image)).toEqual(['busybox:1.37', 'busybox:1.37', 'busybox:1.37']);
  });

  it('scale sets the replicas through the scale subresource, of a Deployment and of a ReplicaSet', async () => {
    await ok('scale', 'deployment/web', '--replicas=5');
    expect(await ok('rollout', 'status', 'deployment/web', '--timeout=60s')).toContain('successfully rolled out');
    await eventually(async () => (await livePods(client, NS, 'app=web')).length === 5, 'five pods');
    await ok('scale', 'deployment/web', '--replicas=2');
    await eventually(async () => (await livePods(client, NS, 'app=web')).length === 2, 'two pods');
    await kubectl(k.config, ['-n', NS, 'create', '-f', '-'], 'apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: { name: solo }\nspec:\n  replicas: 1\n  selector: { matchLabels: { app: solo } }\n  template:\n    metadata: { labels: { app: solo } }\n    spec: { containers: [{ name: c, image: busybox }] }\n');
    await ok('scale', 'rs/solo', '--replicas=3');
    await eventually(async () => (await client.get(builtin.replicaSets, 'solo', { namespace: NS })).status?.availableReplicas === 3, 'three available');
  });
});
