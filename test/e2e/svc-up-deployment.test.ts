// A Deployment against `svc up` with real containers: 3 busybox replicas run by the cluster's own
// node agent reach Available; `kubectl set image` rolls them with `kubectl rollout status`
// returning 0, and `kubectl rollout undo` goes back. The images come from a registry on loopback
// standing in for Docker Hub (registries.yaml mirror), each marked so the test can tell them apart.
import { rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../controllers/support.js';
import { kubectl, requireKubectl } from '../support/kubectl.js';
import { markedBusybox, startRegistry, type RunningRegistry } from '../support/registry.js';
import { spawnUp, type UpProcess } from '../support/svc-up.js';

// Short: containerd's socket lives under it and unix socket paths are capped at 107 bytes.
const dir = mkdtempSync('/tmp/svc-e2e-deploy-');
const config = join(dir, 'admin.svcconfig');
let up: UpProcess | undefined;
let hub: RunningRegistry | undefined;
const k = (args: readonly string[], stdin?: string) => kubectl(config, args, stdin);

const manifest = (image: string) => `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: bb
spec:
  replicas: 3
  selector:
    matchLabels: { app: bb }
  template:
    metadata:
      labels: { app: bb }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: c
          image: ${image}
          imagePullPolicy: IfNotPresent
          command: ["sh", "-c", "cat /etc/svc-image; sleep 3600"]
`;

/** The images the Deployment's Ready pods run, sorted. */
async function readyImages(): Promise<string[]> {
  const out = await k(['get', 'pods', '-l', 'app=bb', '-o', 'jsonpath={range .items[*]}{.metadata.deletionTimestamp}|{.spec.containers[0].image}|{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}']);
  return out.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('|'))
    .filter(([deleting, , ready]) => deleting === '' && ready === 'True')
    .map(([, image]) => image!)
    .sort();
}

beforeAll(async () => {
  requireKubectl();
  hub = await startRegistry();
  await hub.push('library/busybox', 'v1', markedBusybox('v1'));
  await hub.push('library/busybox', 'v2', markedBusybox('v2'));
  writeFileSync(join(dir, 'registries.yaml'), `mirrors:\n  docker.io:\n    endpoint:\n      - "http://${hub.host}"\n`);
  up = spawnUp(dir);
  await up.line((line) => line.startsWith('  kubectl'));
  await eventually(async () => (await k(['get', 'nodes', '-o', 'jsonpath={.items[0].status.conditions[?(@.type=="Ready")].status}'])).stdout === 'True', 'the node to be Ready', 60_000);
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
  await hub?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 90_000);

describe('a Deployment against svc up', () => {
  it('reaches Available with 3 running busybox pods', async () => {
    const applied = await k(['apply', '-f', '-'], manifest('busybox:v1'));
    expect(applied.code, applied.stderr).toBe(0);
    const status = await k(['rollout', 'status', 'deployment/bb', '--timeout=120s']);
    expect(status.code, status.stderr + status.stdout).toBe(0);
    const available = await k(['get', 'deployment', 'bb', '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].status}']);
    expect(available.stdout).toBe('True');
    expect(await readyImages()).toEqual(['busybox:v1', 'busybox:v1', 'busybox:v1']);
    const pod = (await k(['get', 'pods', '-l', 'app=bb', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    await eventually(async () => (await k(['logs', pod])).stdout.includes('v1'), 'the container printing its image marker');
  }, 180_000);

  it('rolls to a new image with kubectl set image, and back with rollout undo', async () => {
    const set = await k(['set', 'image', 'deployment/bb', 'c=busybox:v2']);
    expect(set.code, set.stderr).toBe(0);
    const status = await k(['rollout', 'status', 'deployment/bb', '--timeout=120s']);
    expect(status.code, status.stderr + status.stdout).toBe(0);
    await eventually(async () => (await readyImages()).join() === 'busybox:v2,busybox:v2,busybox:v2', 'three v2 pods ready', 60_000);
    const undo = await k(['rollout', 'undo', 'deployment/bb']);
    expect(undo.code, undo.stderr).toBe(0);
    const back = await k(['rollout', 'status', 'deployment/bb', '--timeout=120s']);
    expect(back.code, back.stderr + back.stdout).toBe(0);
    await eventually(async () => (await readyImages()).join() === 'busybox:v1,busybox:v1,busybox:v1', 'three v1 pods ready', 60_000);
    const revision = await k(['get', 'deployment', 'bb', '-o', 'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}']);
    expect(revision.stdout).toBe('3');
  }, 240_000);
});
