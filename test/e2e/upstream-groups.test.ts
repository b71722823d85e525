/**
 * Every `*.svc.io` group is also served under its Kubernetes name (`*.k8s.io`): the same objects
 * in the same storage, each answer stamped with the apiVersion the request used, so unmodified
 * manifests (kubectl) and typed clients (@kubernetes/client-node) work.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobuf } from '../../src/encoding/index.js';
import { startTestServer, TOKEN, type TestServer } from '../apiserver/harness.js';
import { kubectl, useKubectlServer } from '../support/kubectl.js';
import { startApiServer, type RunningApiServer } from '../../src/cli/apiserver-command.js';

describe('upstream group names over HTTP', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory');
  });
  afterAll(() => s.close());
  const req = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) =>
    s.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });

  it('lists each svc.io group again under its k8s.io name in discovery', async () => {
    const groups = (await req('GET', '/apis')).json() as { groups: { name: string; preferredVersion: { groupVersion: string } }[] };
    const names = groups.groups.map((g) => g.name);
    for (const name of ['rbac.authorization', 'coordination', 'discovery', 'events', 'certificates']) {
      expect(names).toContain(`${name}.svc.io`);
      expect(names).toContain(`${name}.k8s.io`);
    }
    expect(names.indexOf('rbac.authorization.svc.io')).toBeLessThan(names.indexOf('rbac.authorization.k8s.io'));
    expect(groups.groups.find((g) => g.name === 'coordination.k8s.io')!.preferredVersion.groupVersion).toBe('coordination.k8s.io/v1');
    // Groups Kubernetes leaves unsuffixed have one name.
    expect(names.filter((n) => n.startsWith('apps'))).toEqual(['apps']);

    const group = (await req('GET', '/apis/rbac.authorization.k8s.io')).json() as { name: string; versions: { groupVersion: string }[] };
    expect(group.name).toBe('rbac.authorization.k8s.io');
    expect(group.versions[0]!.groupVersion).toBe('rbac.authorization.k8s.io/v1');
    const resources = (await req('GET', '/apis/rbac.authorization.k8s.io/v1')).json() as { groupVersion: string; resources: { name: string }[] };
    expect(resources.groupVersion).toBe('rbac.authorization.k8s.io/v1');
    expect(resources.resources.map((r) => r.name)).toContain('roles');
    expect((await req('GET', '/apis/apps.k8s.io')).statusCode).toBe(404);
  });

  it('stores one object and answers each name with its own apiVersion', async () => {
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader', namespace: 'default' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    };
    const created = await req('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', role);
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' });

    const upstream = (await req('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/reader')).json();
    const own = (await req('GET', '/apis/rbac.authorization.svc.io/v1/namespaces/default/roles/reader')).json();
    expect(upstream.apiVersion).toBe('rbac.authorization.k8s.io/v1');
    expect(own.apiVersion).toBe('rbac.authorization.svc.io/v1');
    expect(upstream.metadata.uid).toBe(own.metadata.uid);

    const list = (await req('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles')).json();
    expect(list).toMatchObject({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleList' });
    expect(list.items.every((item: { apiVersion: string }) => item.apiVersion === 'rbac.authorization.k8s.io/v1')).toBe(true);

    const pb = await req('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/reader', undefined, { accept: 'application/vnd.svc.protobuf' });
    expect(pb.headers['content-type']).toContain('protobuf');
    expect(decodeProtobuf(pb.rawPayload)).toMatchObject({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' } });

    const yaml = await req('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/reader', undefined, { accept: 'application/yaml' });
    expect(yaml.body).toContain('apiVersion: rbac.authorization.k8s.io/v1');

    const updated = await req('PUT', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/reader', { ...upstream, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().apiVersion).toBe('rbac.authorization.k8s.io/v1');
    const deleted = await req('DELETE', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/reader');
    expect(deleted.statusCode).toBe(200);
    expect((await req('GET', '/apis/rbac.authorization.svc.io/v1/namespaces/default/roles/reader')).statusCode).toBe(404);
  });

  it('accepts a body that names the other spelling of the same group', async () => {
    const lease = { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: 'mixed', namespace: 'default' }, spec: { holderIdentity: 'a' } };
    const created = await req('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', lease);
    expect(created.statusCode).toBe(201);
    expect(created.json().apiVersion).toBe('coordination.k8s.io/v1');
  });
});

describe('upstream group names with real clients', () => {
  const k = useKubectlServer('svc-upstream-', 'memory');

  it('kubectl applies an unmodified upstream Role, RoleBinding and Lease and reads them back', async () => {
    const manifest = join(k.dir, 'rbac.yaml');
    writeFileSync(
      manifest,
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: Role',
        'metadata: {name: pod-reader, namespace: default}',
        'rules:',
        '- apiGroups: [""]',
        '  resources: [pods]',
        '  verbs: [get, watch, list]',
        '---',
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: RoleBinding',
        'metadata: {name: read-pods, namespace: default}',
        'subjects:',
        '- kind: User',
        '  name: jane',
        '  apiGroup: rbac.authorization.k8s.io',
        'roleRef: {kind: Role, name: pod-reader, apiGroup: rbac.authorization.k8s.io}',
        '---',
        'apiVersion: coordination.k8s.io/v1',
        'kind: Lease',
        'metadata: {name: my-lock, namespace: default}',
        'spec: {holderIdentity: me, leaseDurationSeconds: 15}',
        '',
      ].join('\n'),
    );
    const applied = await kubectl(k.config, ['apply', '-f', manifest]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('role.rbac.authorization.k8s.io/pod-reader created');
    expect(applied.stdout).toContain('rolebinding.rbac.authorization.k8s.io/read-pods created');
    expect(applied.stdout).toContain('lease.coordination.k8s.io/my-lock created');
    const again = await kubectl(k.config, ['apply', '-f', manifest]);
    expect(again.stdout).toContain('role.rbac.authorization.k8s.io/pod-reader unchanged');

    const role = await kubectl(k.config, ['get', 'roles.rbac.authorization.k8s.io', 'pod-reader', '-o', 'jsonpath={.apiVersion} {.rules[0].verbs}']);
    expect(role.stdout).toBe('rbac.authorization.k8s.io/v1 ["get","watch","list"]');
    const own = await kubectl(k.config, ['get', 'roles.rbac.authorization.svc.io', 'pod-reader', '-o', 'jsonpath={.apiVersion}']);
    expect(own.stdout).toBe('rbac.authorization.svc.io/v1');
    const deleted = await kubectl(k.config, ['delete', '-f', manifest]);
    expect(deleted.stdout).toContain('role.rbac.authorization.k8s.io "pod-reader" deleted');
  });

  describe('@kubernetes/client-node typed RBAC and Lease calls', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-upstream-node-'));
    let server: RunningApiServer;
    let rbac: RbacAuthorizationV1Api;
    let coordination: CoordinationV1Api;
    beforeAll(async () => {
      server = await startApiServer({ dataDir: join(dir, 'data'), storage: 'memory', bindAddress: '127.0.0.1', securePort: 0 });
      const config = new KubeConfig();
      config.loadFromFile(server.svcconfigPath);
      rbac = config.makeApiClient(RbacAuthorizationV1Api);
      coordination = config.makeApiClient(CoordinationV1Api);
    });
    afterAll(async () => {
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('creates and reads ClusterRoles and RoleBindings', async () => {
      const created = await rbac.createClusterRole({ body: { metadata: { name: 'typed-viewer' }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] }] } });
      expect(created.apiVersion).toBe('rbac.authorization.k8s.io/v1');
      const read = await rbac.readClusterRole({ name: 'typed-viewer' });
      expect(read.rules?.[0]?.resources).toEqual(['deployments']);
      await rbac.createNamespacedRoleBinding({
        namespace: 'default',
        body: { metadata: { name: 'typed-binding' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'typed-viewer' }, subjects: [{ kind: 'User', name: 'ann', apiGroup: 'rbac.authorization.k8s.io' }] },
      });
      const bindings = await rbac.listNamespacedRoleBinding({ namespace: 'default' });
      expect(bindings.items.map((b) => b.metadata?.name)).toContain('typed-binding');
      expect(bindings.apiVersion).toBe('rbac.authorization.k8s.io/v1');
    });

    it('creates, renews and reads a Lease as leader election does', async () => {
      const now = new Date();
      const lease = await coordination.createNamespacedLease({
        namespace: 'default',
        body: { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: now as never, renewTime: now as never } },
      });
      expect(lease.apiVersion).toBe('coordination.k8s.io/v1');
      const renewed = await coordination.replaceNamespacedLease({ name: 'leader', namespace: 'default', body: { ...lease, spec: { ...lease.spec, holderIdentity: 'b' } } });
      expect(renewed.spec?.holderIdentity).toBe('b');
      const read = await coordination.readNamespacedLease({ name: 'leader', namespace: 'default' });
      expect(read.spec?.holderIdentity).toBe('b');
      expect(read.metadata?.resourceVersion).toBe(renewed.metadata?.resourceVersion);
    });
  });
});
