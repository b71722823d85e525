import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type RunningApiServer } from '../support/api-server.js';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

describe('kubectl reads the server-side tables and writes protobuf', () => {
  const k = useKubectlServer('svc-kubectl-repr-', 'memory');

  it('prints the pod columns of the server Table', async () => {
    const manifest = join(k.dir, 'pod.yaml');
    writeFileSync(manifest, 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  nodeName: node-7\n  containers: [{name: a, image: nginx}, {name: b, image: redis}]\n');
    expect((await kubectl(k.config, ['create', '-f', manifest])).code).toBe(0);
    const res = await kubectl(k.config, ['get', 'pods']);
    expect(res.stderr).toBe('');
    const [header, row] = res.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(row!.split(/\s{2,}/).slice(0, 4)).toEqual(['web', '0/2', 'Pending', '0']);
    const wide = await kubectl(k.config, ['get', 'pods', '-o', 'wide']);
    expect(wide.stdout).toMatch(/NODE/);
    expect(wide.stdout).toContain('node-7');
  });

  it('watches pods with the Table view (kubectl get -w)', async () => {
    const res = await kubectl(k.config, ['get', 'pods', '--watch', '--request-timeout=2s']);
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]!.split(/\s{2,}/)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(lines[1]!.split(/\s{2,}/).slice(0, 4)).toEqual(['web', '0/2', 'Pending', '0']);
  });

  it('prints the deployment columns', async () => {
    const manifest = join(k.dir, 'deploy.yaml');
    writeFileSync(manifest, 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n    spec:\n      containers: [{name: api, image: nginx}]\n');
    expect((await kubectl(k.config, ['create', '-f', manifest])).code).toBe(0);
    const res = await kubectl(k.config, ['get', 'deployments']);
    const [header, row] = res.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(row!.split(/\s{2,}/).slice(0, 4)).toEqual(['api', '0/3', '0', '0']);
  });

  it('prints Name and Created At for a kind without columns', async () => {
    const manifest = join(k.dir, 'role.yaml');
    writeFileSync(manifest, 'apiVersion: rbac.authorization.svc.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\nrules: [{apiGroups: [""], resources: [pods], verbs: [get]}]\n');
    const created = await kubectl(k.config, ['create', '-f', manifest]);
    expect(created.stderr).toBe('');
    const res = await kubectl(k.config, ['get', 'clusterroles']);
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')[0]!.split(/\s{2,}/)).toEqual(['NAME', 'CREATED AT']);
  });

  it('creates a namespace (kubectl sends protobuf) and reads it back', async () => {
    const created = await kubectl(k.config, ['create', 'namespace', 'shop']);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('namespace/shop created');
    const listed = await kubectl(k.config, ['get', 'namespaces']);
    expect(listed.stdout.split('\n')[0]!.split(/\s{2,}/)).toEqual(['NAME', 'STATUS', 'AGE']);
    expect(listed.stdout).toMatch(/shop\s+Active/);
  });
});

describe('@kubernetes/client-node against svc-apiserver', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-client-node-'));
  let server: RunningApiServer;
  let core: CoreV1Api;
  let apps: AppsV1Api;

  beforeAll(async () => {
    server = await startApiServer({ dataDir: join(dir, 'data'), storage: 'memory', bindAddress: '127.0.0.1', securePort: 0 });
    const config = new KubeConfig();
    config.loadFromFile(server.svcconfigPath);
    core = config.makeApiClient(CoreV1Api);
    apps = config.makeApiClient(AppsV1Api);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, reads and lists typed objects', async () => {
    await core.createNamespace({ body: { metadata: { name: 'typed' } } });
    const created = await core.createNamespacedConfigMap({ namespace: 'typed', body: { metadata: { name: 'settings' }, data: { color: 'blue' } } });
    expect(created.metadata?.uid).toBeTruthy();
    const read = await core.readNamespacedConfigMap({ name: 'settings', namespace: 'typed' });
    expect(read.data).toEqual({ color: 'blue' });
    expect(read.metadata?.creationTimestamp).toBeInstanceOf(Date);
    const list = await core.listNamespacedConfigMap({ namespace: 'typed' });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['settings']);
    expect(list.metadata?.resourceVersion).toMatch(/^\d+$/);
  });

  it('creates a deployment and reads its status fields back', async () => {
    await apps.createNamespacedDeployment({
      namespace: 'typed',
      body: { metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } } },
    });
    const read = await apps.readNamespacedDeployment({ name: 'web', namespace: 'typed' });
    expect(read.spec?.replicas).toBe(2);
    expect(read.spec?.template.spec?.containers[0]?.image).toBe('nginx');
  });
});
