import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../../src/api/index.js';
import { buildApp, parseAuthorizationModes } from '../../../src/apiserver/index.js';
import { reconcileBootstrapPolicy } from '../../../src/apiserver/authz/index.js';
import { MemoryStore } from '../../../src/storage/index.js';
import { unauthorized } from '../../../src/api/index.js';
import { applyRbac, clusterRole, clusterRoleBinding, eventually, role, roleBinding, startAuthzServer, subject } from './harness.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

describe('RBAC changes', () => {
  it.each(['memory', 'sqlite'] as const)('take effect on the next requests (%s)', async (backend) => {
    const server = await startAuthzServer(backend);
    try {
      const list = () => server.as('carol', 'GET', '/api/v1/namespaces/default/configmaps');
      expect((await list()).status).toBe(403);
      await applyRbac(server, [
        role('default', 'cm-reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]),
        roleBinding('default', 'carol-reads', 'Role', 'cm-reader', [subject('User', 'alice')]),
      ]);
      expect((await list()).status).toBe(403); // bound to someone else
      // Adding carol to the binding's subjects grants it.
      const binding = await server.as('admin', 'GET', `${RBAC}/namespaces/default/rolebindings/carol-reads`);
      const updated = { ...binding.body, subjects: [...binding.body.subjects, subject('User', 'carol')] };
      expect((await server.as('admin', 'PUT', `${RBAC}/namespaces/default/rolebindings/carol-reads`, updated)).status).toBe(200);
      await eventually(async () => (await list()).status === 200);
      // Narrowing the role takes it away again.
      const narrowed = role('default', 'cm-reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
      expect((await server.as('admin', 'PATCH', `${RBAC}/namespaces/default/roles/cm-reader`, { rules: narrowed.rules }, 'application/merge-patch+json')).status).toBe(200);
      await eventually(async () => (await list()).status === 403);
      // A cluster-wide grant, then its removal.
      await applyRbac(server, [
        clusterRole('cm-lister', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]),
        clusterRoleBinding('carol-lists', 'cm-lister', [subject('User', 'carol')]),
      ]);
      await eventually(async () => (await list()).status === 200);
      expect((await server.as('admin', 'DELETE', `${RBAC}/clusterrolebindings/carol-lists`)).status).toBe(200);
      await eventually(async () => (await list()).status === 403);
    } finally {
      await server.close();
    }
  });

  it('aggregates ClusterRoles by label into admin, edit and view', async () => {
    const server = await startAuthzServer('memory');
    try {
      await applyRbac(server, [roleBinding('default', 'ivy-views', 'ClusterRole', 'view', [subject('User', 'ivy')])]);
      const leases = () => server.as('ivy', 'POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { metadata: { name: 'l' } });
      expect((await leases()).status).toBe(403);
      const extra = { ...clusterRole('lease-writer', [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] }]) };
      await applyRbac(server, [{ ...extra, metadata: { name: 'lease-writer', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } } } as never]);
      await eventually(async () => (await leases()).status === 201);
    } finally {
      await server.close();
    }
  });
});

describe('the default policy', () => {
  it('exists from the first start, and cluster-admin works through system:masters', async () => {
    const server = await startAuthzServer('memory');
    try {
      const roles = await server.as('admin', 'GET', `${RBAC}/clusterroles`);
      const names = roles.body.items.map((r: { metadata: { name: string } }) => r.metadata.name);
      for (const name of [
        'cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer',
        'system:svc-controller-manager', 'system:svc-scheduler', 'system:node',
      ]) {
        expect(names).toContain(name);
      }
      const admin = await server.as('admin', 'GET', `${RBAC}/clusterrolebindings/cluster-admin`);
      expect(admin.body).toMatchObject({
        metadata: { annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
        roleRef: { kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'Group', name: 'system:masters' }],
      });
      // A SubjectAccessReview for a member of system:masters who has no binding by name.
      const sar = await server.as('admin', 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        spec: { user: 'someone', groups: ['system:masters'], resourceAttributes: { verb: 'delete', resource: 'nodes', name: 'n1' } },
      });
      expect(sar.body.status.allowed).toBe(true);
      // The daemons' users get what they need, and not more.
      const can = async (user: string, groups: string[], attrs: object) =>
        (await server.as('admin', 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { spec: { user, groups, resourceAttributes: attrs } })).body.status.allowed;
      expect(await can('system:svc-scheduler', [], { verb: 'create', resource: 'pods', subresource: 'binding', namespace: 'x', name: 'p' })).toBe(true);
      expect(await can('system:svc-scheduler', [], { verb: 'delete', resource: 'nodes', name: 'n' })).toBe(false);
      expect(await can('system:node:n1', ['system:nodes'], { verb: 'patch', resource: 'nodes', subresource: 'status', name: 'n1' })).toBe(true);
      expect(await can('system:node:n1', ['system:nodes'], { verb: 'create', group: 'coordination.k8s.io', resource: 'leases', namespace: 'svc-node-lease' })).toBe(true);
      expect(await can('system:node:n1', ['system:nodes'], { verb: 'create', group: 'apps', resource: 'deployments', namespace: 'x' })).toBe(false);
      expect(await can('system:svc-controller-manager', [], { verb: 'update', group: 'apps', resource: 'replicasets', subresource: 'status', namespace: 'x', name: 'r' })).toBe(true);
      expect(await can('system:svc-controller-manager', [], { verb: 'escalate', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' })).toBe(false);
      // csrapproving and csrsigning: approve and sign for a signer (CertificateApproval, CertificateSigning).
      expect(await can('system:svc-controller-manager', [], { verb: 'approve', group: 'certificates.k8s.io', resource: 'signers', name: 'kubernetes.io/kube-apiserver-client-kubelet' })).toBe(true);
      expect(await can('system:svc-controller-manager', [], { verb: 'sign', group: 'certificates.k8s.io', resource: 'signers', name: 'svc.io/nodeagent-serving' })).toBe(true);
      expect(await can('system:svc-scheduler', [], { verb: 'approve', group: 'certificates.k8s.io', resource: 'signers', name: 'kubernetes.io/kube-apiserver-client-kubelet' })).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('is reconciled on every start: defaults come back, user additions stay, autoupdate=false is respected', async () => {
    const store = new MemoryStore();
    const registry = builtinRegistry();
    const first = await reconcileBootstrapPolicy(store, registry);
    expect(first.get('ClusterRole/cluster-admin')).toBe('created');
    expect([...(await reconcileBootstrapPolicy(store, registry)).values()].every((r) => r === 'unchanged')).toBe(true);

    const key = (kind: string, name: string) => `${store.prefix}rbac.authorization.svc.io/${kind}/${name}`;
    const read = async (kind: string, name: string) => JSON.parse(Buffer.from((await store.get(key(kind, name)))!.value).toString());
    const write = async (kind: string, name: string, object: unknown) => {
      const kv = (await store.get(key(kind, name)))!;
      await store.update(key(kind, name), Buffer.from(JSON.stringify(object)), kv.modRevision);
    };
    // A user adds a subject and drops the default one; another pins a role with autoupdate=false.
    const binding = await read('clusterrolebindings', 'cluster-admin');
    await write('clusterrolebindings', 'cluster-admin', { ...binding, subjects: [{ kind: 'User', name: 'ops' }] });
    const view = await read('clusterroles', 'system:aggregate-to-view');
    const pinned = { ...view, metadata: { ...view.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] };
    await write('clusterroles', 'system:aggregate-to-view', pinned);
    const discovery = await read('clusterroles', 'system:discovery');
    const extraRule = { nonResourceURLs: ['/metrics'], verbs: ['get'] };
    await write('clusterroles', 'system:discovery', { ...discovery, rules: [extraRule] });
    await store.delete(key('clusterroles', 'edit'));

    const again = await reconcileBootstrapPolicy(store, registry);
    expect(again.get('ClusterRoleBinding/cluster-admin')).toBe('updated');
    expect(again.get('ClusterRole/system:aggregate-to-view')).toBe('skipped');
    expect(again.get('ClusterRole/edit')).toBe('created');
    expect((await read('clusterrolebindings', 'cluster-admin')).subjects).toEqual([
      { kind: 'User', name: 'ops' },
      expect.objectContaining({ kind: 'Group', name: 'system:masters' }),
    ]);
    expect((await read('clusterroles', 'system:aggregate-to-view')).rules).toEqual([]);
    const rules = (await read('clusterroles', 'system:discovery')).rules;
    expect(rules[0]).toEqual(extraRule);
    expect(rules).toHaveLength(2);
    await store.close();
  });
});

describe('--authorization-mode', () => {
  it('AlwaysAllow lets every authenticated request through and creates no policy', async () => {
    const server = await startAuthzServer('memory', { authorization: ['AlwaysAllow'] });
    try {
      expect((await server.as('nobody', 'GET', '/api/v1/namespaces/default/secrets')).status).toBe(200);
      expect((await server.as('nobody', 'GET', '/version')).status).toBe(200);
      expect((await server.as('admin', 'GET', `${RBAC}/clusterroles`)).body.items).toEqual([]);
      const ssar = await server.as('nobody', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: { resourceAttributes: { verb: 'delete', resource: 'nodes' } } });
      expect(ssar.body.status.allowed).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('AlwaysDeny refuses everyone, and after RBAC only what RBAC does not allow', async () => {
    const store = new MemoryStore();
    const app = await buildApp({ store, authorization: ['AlwaysDeny'], authenticate: (h) => (h['authorization'] ? { name: 'root', uid: '', groups: ['system:masters'] } : (() => { throw unauthorized('Unauthorized'); })()) });
    const res = await app.inject({ method: 'GET', url: '/api/v1/namespaces', headers: { authorization: 'Bearer x' } });
    expect(res.statusCode).toBe(403);
    await app.close();
    await store.close();
  });

  it('is parsed from a comma list, and anything else is refused with the reason', () => {
    expect(parseAuthorizationModes('RBAC')).toEqual(['RBAC']);
    expect(parseAuthorizationModes('RBAC,AlwaysDeny')).toEqual(['RBAC', 'AlwaysDeny']);
    expect(() => parseAuthorizationModes('Node,RBAC')).toThrow(/unknown authorization mode "Node"/);
    expect(() => parseAuthorizationModes('RBAC,RBAC')).toThrow(/twice/);
  });
});
