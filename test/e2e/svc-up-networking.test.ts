// In-cluster networking under `svc up` with real pods: a pod's in-cluster client config reaches the
// API server through the `kubernetes` Service; a client pod reaches a Deployment's Service by its
// DNS names (and the traffic spreads), a NodePort answers on the node's address; stopping svc up
// removes every rule it made, and a restart routes again.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyPrefix } from '../../src/cli/up-networking.js';
import { bridgeName } from '../../src/cli/up-node.js';
import { eventually } from '../controllers/support.js';
import { kubectl, requireKubectl } from '../support/kubectl.js';
import { spawnUp, type UpProcess } from '../support/svc-up.js';

const REPO = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync('/tmp/svc-e2e-net-');
const config = join(dir, 'admin.svcconfig');
const prefix = proxyPrefix(bridgeName(dir));
let up: UpProcess | undefined;
const k = (args: readonly string[], stdin?: string) => kubectl(config, args, stdin);
const rules = () => (spawnSync('iptables-save', [], { encoding: 'utf8' }).stdout ?? '').split('\n').filter((l) => l.includes(prefix));

const apps = `
apiVersion: v1
kind: Namespace
metadata: { name: net }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: net }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: httpd
          image: svc.local/busybox:latest
          command: ["sh", "-c", "mkdir -p /www && hostname > /www/index.html && exec httpd -f -p 8080 -h /www"]
          ports: [{ name: http, containerPort: 8080 }]
          readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: net }
spec:
  type: NodePort
  selector: { app: web }
  ports: [{ name: http, port: 80, targetPort: http }]
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: client, namespace: net }
spec:
  replicas: 1
  selector: { matchLabels: { app: client } }
  template:
    metadata: { labels: { app: client } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: c
          image: svc.local/busybox:latest
          command: ["sleep", "3600"]
`;

const inCluster = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: pod-reader, namespace: net }
rules: [{ apiGroups: [""], resources: [pods], verbs: [get, list, watch] }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: pod-reader, namespace: net }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader }
subjects: [{ kind: ServiceAccount, name: default, namespace: net }]
---
apiVersion: v1
kind: Pod
metadata: { name: lister, namespace: net }
spec:
  restartPolicy: Never
  containers:
    - name: node
      image: svc.local/busybox:latest
      workingDir: ${REPO}
      command: ["/usr/bin/node", "--import", "tsx", "test/e2e/fixtures/in-cluster-list.ts"]
      env: [{ name: POD_NAMESPACE, valueFrom: { fieldRef: { fieldPath: metadata.namespace } } }, { name: HOME, value: /tmp }]
      volumeMounts:
        - { name: usr, mountPath: /usr, readOnly: true }
        - { name: lib, mountPath: /lib, readOnly: true }
        - { name: lib64, mountPath: /lib64, readOnly: true }
        - { name: repo, mountPath: ${REPO}, readOnly: true }
  volumes:
    - { name: usr, hostPath: { path: /usr } }
    - { name: lib, hostPath: { path: /usr/lib } }
    - { name: lib64, hostPath: { path: /usr/lib64 } }
    - { name: repo, hostPath: { path: ${REPO} } }
`;

const fromClient = async (url: string): Promise<string | undefined> => {
  const out = await k(['exec', '-n', 'net', 'deploy/client', '--', 'wget', '-q', '-O', '-', url]);
  return out.code === 0 ? out.stdout.trim() : undefined;
};
const nodeAddress = async () => (await k(['get', 'nodes', '-o', 'jsonpath={.items[0].status.addresses[?(@.type=="InternalIP")].address}'])).stdout.trim();
const nodePort = async () => Number((await k(['get', 'svc', 'web', '-n', 'net', '-o', 'jsonpath={.spec.ports[0].nodePort}'])).stdout);

async function startUp(): Promise<void> {
  up = spawnUp(dir);
  await up.line((line) => line.startsWith('  kubectl'));
  await eventually(async () => (await k(['get', 'nodes', '-o', 'jsonpath={.items[0].status.conditions[?(@.type=="Ready")].status}'])).stdout === 'True', 'the node to be Ready', 60_000);
}

async function stopUp(): Promise<void> {
  if (!up || up.child.exitCode !== null) return;
  up.child.kill('SIGINT');
  const stopped = await Promise.race([up.exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 60_000))]);
  if (!stopped) {
    up.child.kill('SIGKILL');
    await up.exited;
  }
}

beforeAll(async () => {
  requireKubectl();
  await startUp();
}, 120_000);

afterAll(async () => {
  await stopUp();
  rmSync(dir, { recursive: true, force: true });
}, 90_000);

describe('in-cluster networking under svc up', () => {
  it('a Deployment behind a Service: reached by its DNS names, spread over its pods, and on a NodePort', async () => {
    const applied = await k(['apply', '-f', '-'], apps);
    expect(applied.code, applied.stderr).toBe(0);
    for (const name of ['web', 'client']) {
      const status = await k(['rollout', 'status', `deployment/${name}`, '-n', 'net', '--timeout=120s']);
      expect(status.code, status.stderr + status.stdout).toBe(0);
    }
    const pods = (await k(['get', 'pods', '-n', 'net', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}'])).stdout.split(' ').sort();
    expect(pods).toHaveLength(2);
    await eventually(async () => (await fromClient('http://web.net.svc.cluster.local')) !== undefined, 'web by its full name', 60_000);
    const seen = new Set<string>();
    await eventually(async () => {
      const answer = await fromClient('http://web');
      if (answer) seen.add(answer);
      return seen.size === 2;
    }, 'both pods answering http://web', 60_000);
    expect([...seen].sort()).toEqual(pods);
    const address = await nodeAddress();
    const port = await nodePort();
    await eventually(async () => {
      const res = await fetch(`http://${address}:${port}/`).catch(() => undefined);
      return res !== undefined && pods.includes((await res.text()).trim());
    }, 'the NodePort on the node address', 30_000);
  }, 300_000);

  it('a pod lists pods through the kubernetes Service with its in-cluster config (svc client and client-node)', async () => {
    const applied = await k(['apply', '-f', '-'], inCluster);
    expect(applied.code, applied.stderr).toBe(0);
    await eventually(async () => ['Succeeded', 'Failed'].includes((await k(['get', 'pod', 'lister', '-n', 'net', '-o', 'jsonpath={.status.phase}'])).stdout), 'the lister to finish', 120_000);
    const logs = (await k(['logs', 'lister', '-n', 'net'])).stdout;
    const service = (await k(['get', 'svc', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
    expect(logs).toMatch(new RegExp(`svc-client pods=\\d+ server=${service.replaceAll('.', '\\.')}:443`));
    expect(logs).toMatch(/client-node pods=\d+ server=https:\/\//);
    expect((await k(['get', 'pod', 'lister', '-n', 'net', '-o', 'jsonpath={.status.phase}'])).stdout).toBe('Succeeded');
  }, 180_000);

  it("a headless Service's StatefulSet pod resolves as st-0.st; a scale-down leaves the routing", async () => {
    const statefulSet = `
apiVersion: v1
kind: Service
metadata: { name: st, namespace: net }
spec:
  clusterIP: None
  selector: { app: st }
  ports: [{ name: peer, port: 7000 }]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: st, namespace: net }
spec:
  serviceName: st
  replicas: 1
  selector: { matchLabels: { app: st } }
  template:
    metadata: { labels: { app: st } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: c
          image: svc.local/busybox:latest
          command: ["sleep", "3600"]
`;
    const applied = await k(['apply', '-f', '-'], statefulSet);
    expect(applied.code, applied.stderr).toBe(0);
    const podIp = async () => (await k(['get', 'pod', 'st-0', '-n', 'net', '-o', 'jsonpath={.status.podIP}'])).stdout;
    await eventually(async () => (await podIp()) !== '', 'st-0 running', 120_000);
    // The short name goes through the pod's search list (busybox's nslookup would not use it);
    // wget says where it connects before it fails (nothing listens on 7000).
    await eventually(async () => {
      const out = await k(['exec', '-n', 'net', 'deploy/client', '--', 'wget', '-O', '-', 'http://st-0.st:7000/']);
      return `${out.stdout}${out.stderr}`.includes(`(${await podIp()}:7000)`);
    }, 'st-0.st resolved to its pod', 60_000);

    const scaled = await k(['scale', 'deployment/web', '-n', 'net', '--replicas=1']);
    expect(scaled.code, scaled.stderr).toBe(0);
    await eventually(async () => (await k(['get', 'pods', '-n', 'net', '-l', 'app=web', '-o', 'name'])).stdout.trim().split('\n').length === 1, 'one web pod left', 60_000);
    const left = (await k(['get', 'pods', '-n', 'net', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    await eventually(async () => {
      const answers = new Set<string>();
      for (let i = 0; i < 6; i++) answers.add((await fromClient('http://web')) ?? 'failed');
      return answers.size === 1 && answers.has(left);
    }, 'only the remaining pod answering', 30_000);
  }, 240_000);

  it('refuses a Service with a port out of range or a clashing NodePort (422), and routes nothing for it', async () => {
    const port = await nodePort();
    const bad = (name: string, ports: string) => `
apiVersion: v1
kind: Service
metadata: { name: ${name}, namespace: net }
spec:
  type: NodePort
  selector: { app: web }
  ports: [${ports}]
`;
    const outOfRange = await k(['apply', '-f', '-'], bad('bad-port', '{ port: 70000, targetPort: 8080 }'));
    expect(outOfRange.code).not.toBe(0);
    expect(outOfRange.stderr).toMatch(/invalid|Invalid/);
    const clash = await k(['apply', '-f', '-'], bad('clash', `{ port: 81, targetPort: 8080, nodePort: ${port} }`));
    expect(clash.code).not.toBe(0);
    expect(clash.stderr).toMatch(/already allocated|provided port is already allocated|Invalid/);
    expect((await k(['get', 'svc', '-n', 'net', '-o', 'name'])).stdout).not.toMatch(/bad-port|clash/);
    expect(rules().filter((line) => line.includes('net/bad-port') || line.includes('net/clash'))).toEqual([]);
  }, 60_000);

  it('stopping svc up removes every rule it made; a restart routes again', async () => {
    expect(rules().length).toBeGreaterThan(0);
    await stopUp();
    expect(rules()).toEqual([]);
    await startUp();
    for (const name of ['web', 'client']) {
      const status = await k(['rollout', 'status', `deployment/${name}`, '-n', 'net', '--timeout=120s']);
      expect(status.code, status.stderr + status.stdout).toBe(0);
    }
    await eventually(async () => (await fromClient('http://web.net.svc.cluster.local')) !== undefined, 'web routed after the restart', 90_000);
  }, 300_000);
});
