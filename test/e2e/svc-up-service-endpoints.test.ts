// A Deployment's pods behind a Service against `svc up`: the Service gets a cluster IP from the
// API server's range, and the pods' real IPs (the node agent's bridge) appear in its Endpoints and
// EndpointSlice with the named target port resolved; scaling down takes one out of both. A
// selector-less Service with hand-written Endpoints is mirrored into a slice. Read with kubectl.
import { rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../controllers/support.js';
import { kubectl, requireKubectl } from '../support/kubectl.js';
import { markedBusybox, startRegistry, type RunningRegistry } from '../support/registry.js';
import { spawnUp, type UpProcess } from '../support/svc-up.js';

const dir = mkdtempSync('/tmp/svc-e2e-ep-');
const config = join(dir, 'admin.svcconfig');
let up: UpProcess | undefined;
let hub: RunningRegistry | undefined;
const k = (args: readonly string[], stdin?: string) => kubectl(config, args, stdin);

const manifest = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: c
          image: busybox:v1
          imagePullPolicy: IfNotPresent
          command: ["sh", "-c", "sleep 3600"]
          ports:
            - { name: http, containerPort: 8080 }
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: { app: web }
  ports:
    - { name: http, port: 80, targetPort: http }
---
apiVersion: v1
kind: Service
metadata:
  name: external
spec:
  ports:
    - { name: pg, port: 5432 }
---
apiVersion: v1
kind: Endpoints
metadata:
  name: external
subsets:
  - addresses: [{ ip: 192.0.2.10 }]
    ports: [{ name: pg, port: 5432 }]
`;

const lines = (text: string): string[] => text.split(/\s+/).filter(Boolean).sort();

beforeAll(async () => {
  requireKubectl();
  hub = await startRegistry();
  await hub.push('library/busybox', 'v1', markedBusybox('v1'));
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

describe('Service endpoints against svc up', () => {
  it("publishes a Deployment's pods in the Service's Endpoints and EndpointSlice", async () => {
    const applied = await k(['apply', '-f', '-'], manifest);
    expect(applied.code, applied.stderr).toBe(0);
    const status = await k(['rollout', 'status', 'deployment/web', '--timeout=120s']);
    expect(status.code, status.stderr + status.stdout).toBe(0);
    const clusterIp = (await k(['get', 'service', 'web', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
    expect(clusterIp).toMatch(/^10\.0\.0\.\d+$/);

    const podIps = async () => lines((await k(['get', 'pods', '-l', 'app=web', '--field-selector=status.phase=Running', '-o', 'jsonpath={.items[*].status.podIP}'])).stdout);
    await eventually(async () => (await podIps()).length === 2, 'two pod IPs');
    const ips = await podIps();
    await eventually(async () => lines((await k(['get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[*].addresses[*].ip}'])).stdout).join() === ips.join(), 'the pod IPs in the Endpoints', 30_000);
    expect((await k(['get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[0].ports[0].port}'])).stdout).toBe('8080');
    const sliceIps = async () => lines((await k(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[*].endpoints[?(@.conditions.ready==true)].addresses[0]}'])).stdout);
    await eventually(async () => (await sliceIps()).join() === ips.join(), 'the pod IPs in the EndpointSlice', 30_000);
    expect((await k(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[0].ports[0].port}'])).stdout).toBe('8080');

    const scaled = await k(['scale', 'deployment/web', '--replicas=1']);
    expect(scaled.code, scaled.stderr).toBe(0);
    await eventually(async () => lines((await k(['get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[*].addresses[*].ip}'])).stdout).length === 1, 'one address left in the Endpoints', 60_000);
    await eventually(async () => (await sliceIps()).length === 1, 'one ready endpoint left in the slice', 60_000);
  }, 240_000);

  it('mirrors the Endpoints of a selector-less Service into a slice', async () => {
    await eventually(
      async () => (await k(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=external', '-o', 'jsonpath={.items[*].endpoints[*].addresses[0]}'])).stdout === '192.0.2.10',
      'the mirrored slice',
      30_000,
    );
  }, 60_000);
});
