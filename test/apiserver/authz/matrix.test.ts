import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyRbac,
  clusterRole,
  clusterRoleBinding,
  role,
  roleBinding,
  startAuthzServer,
  subject,
  USERS,
  type AuthzServer,
  type UserName,
} from './harness.js';

/**
 * The authorization matrix: users × verbs × resources × namespaces. Every row is asked twice:
 * as a real request (403 Forbidden Status, or the verb's own success) and as a
 * SubjectAccessReview for the same user and groups, which must give the same decision.
 */

const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });
const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

interface ResourceAsk {
  verb: string;
  group?: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

interface Row {
  user: UserName;
  method: string;
  url: string;
  body?: unknown;
  contentType?: string;
  /** The status an allowed request gets; a denied one gets 403. */
  status: number;
  allowed: boolean;
  /** What the SubjectAccessReview asks: resource attributes, or a non-resource path. */
  ask: ResourceAsk | { path: string; verb: string };
  /** The denial's message (asserted where given). */
  message?: string;
}

const A = '/api/v1/namespaces/ns-a';
const B = '/api/v1/namespaces/ns-b';

const rows: Row[] = [
  // Role + RoleBinding to a user, in its namespace only.
  { user: 'alice', method: 'GET', url: `${A}/pods`, status: 200, allowed: true, ask: { verb: 'list', resource: 'pods', namespace: 'ns-a' } },
  { user: 'alice', method: 'GET', url: `${A}/pods/p1`, status: 200, allowed: true, ask: { verb: 'get', resource: 'pods', namespace: 'ns-a', name: 'p1' } },
  { user: 'alice', method: 'GET', url: `${A}/pods?watch=1&timeoutSeconds=1`, status: 200, allowed: true, ask: { verb: 'watch', resource: 'pods', namespace: 'ns-a' } },
  {
    user: 'alice', method: 'GET', url: `${B}/pods`, status: 403, allowed: false, ask: { verb: 'list', resource: 'pods', namespace: 'ns-b' },
    message: 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns-b"',
  },
  {
    user: 'alice', method: 'GET', url: '/api/v1/pods', status: 403, allowed: false, ask: { verb: 'list', resource: 'pods' },
    message: 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" at the cluster scope',
  },
  {
    user: 'alice', method: 'POST', url: `${A}/pods`, body: pod('p2'), status: 403, allowed: false, ask: { verb: 'create', resource: 'pods', namespace: 'ns-a' },
  },
  {
    user: 'alice', method: 'DELETE', url: `${A}/pods/p1`, status: 403, allowed: false, ask: { verb: 'delete', resource: 'pods', namespace: 'ns-a', name: 'p1' },
    message: 'pods "p1" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "ns-a"',
  },
  { user: 'alice', method: 'GET', url: `${A}/configmaps`, status: 403, allowed: false, ask: { verb: 'list', resource: 'configmaps', namespace: 'ns-a' } },
  // A RoleBinding of a ClusterRole to a group grants it in the binding's namespace only.
  { user: 'bob', method: 'GET', url: `${B}/configmaps`, status: 200, allowed: true, ask: { verb: 'list', resource: 'configmaps', namespace: 'ns-b' } },
  { user: 'bob', method: 'POST', url: `${B}/configmaps`, body: { ...configMap('made-by-bob'), metadata: { name: 'made-by-bob', labels: { owner: 'bob' } } }, status: 201, allowed: true, ask: { verb: 'create', resource: 'configmaps', namespace: 'ns-b' } },
  {
    user: 'bob', method: 'PATCH', url: `${B}/configmaps/allowed-cm`, body: { data: { x: 'y' } }, contentType: 'application/merge-patch+json', status: 200, allowed: true,
    ask: { verb: 'patch', resource: 'configmaps', namespace: 'ns-b', name: 'allowed-cm' },
  },
  { user: 'bob', method: 'GET', url: `${A}/configmaps`, status: 403, allowed: false, ask: { verb: 'list', resource: 'configmaps', namespace: 'ns-a' } },
  { user: 'bob', method: 'DELETE', url: `${B}/configmaps?labelSelector=owner%3Dbob`, status: 200, allowed: true, ask: { verb: 'deletecollection', resource: 'configmaps', namespace: 'ns-b' } },
  // resourceNames: only the named object; a list names none, unless narrowed to one name.
  { user: 'dave', method: 'GET', url: `${B}/configmaps/allowed-cm`, status: 200, allowed: true, ask: { verb: 'get', resource: 'configmaps', namespace: 'ns-b', name: 'allowed-cm' } },
  { user: 'dave', method: 'GET', url: `${B}/configmaps/other-cm`, status: 403, allowed: false, ask: { verb: 'get', resource: 'configmaps', namespace: 'ns-b', name: 'other-cm' } },
  { user: 'dave', method: 'GET', url: `${B}/configmaps`, status: 403, allowed: false, ask: { verb: 'list', resource: 'configmaps', namespace: 'ns-b' } },
  {
    user: 'dave', method: 'GET', url: `${B}/configmaps?fieldSelector=metadata.name%3Dallowed-cm`, status: 200, allowed: true,
    ask: { verb: 'list', resource: 'configmaps', namespace: 'ns-b', name: 'allowed-cm' },
  },
  // A ServiceAccount subject; the namespace is part of who it is.
  {
    user: 'builder', method: 'POST', url: '/apis/apps/v1/namespaces/ns-a/deployments', body: deployment('web'), status: 201, allowed: true,
    ask: { verb: 'create', group: 'apps', resource: 'deployments', namespace: 'ns-a' },
  },
  {
    user: 'builder', method: 'POST', url: '/apis/apps/v1/namespaces/ns-b/deployments', body: deployment('web'), status: 403, allowed: false,
    ask: { verb: 'create', group: 'apps', resource: 'deployments', namespace: 'ns-b' },
    message: 'deployments.apps is forbidden: User "system:serviceaccount:ns-a:builder" cannot create resource "deployments" in API group "apps" in the namespace "ns-b"',
  },
  // A rule naming the upstream group grants svc's, asked either way.
  { user: 'erin', method: 'GET', url: '/apis/coordination.svc.io/v1/namespaces/ns-a/leases', status: 200, allowed: true, ask: { verb: 'list', group: 'coordination.svc.io', resource: 'leases', namespace: 'ns-a' } },
  { user: 'erin', method: 'GET', url: '/apis/coordination.k8s.io/v1/namespaces/ns-a/leases', status: 200, allowed: true, ask: { verb: 'list', group: 'coordination.k8s.io', resource: 'leases', namespace: 'ns-a' } },
  {
    user: 'erin', method: 'GET', url: '/apis/coordination.k8s.io/v1/namespaces/ns-a/leases/x', status: 403, allowed: false,
    ask: { verb: 'get', group: 'coordination.k8s.io', resource: 'leases', namespace: 'ns-a', name: 'x' },
    message: 'leases.coordination.k8s.io "x" is forbidden: User "erin" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "ns-a"',
  },
  { user: 'erin', method: 'GET', url: '/apis/apps/v1/deployments', status: 403, allowed: false, ask: { verb: 'list', group: 'apps', resource: 'deployments' } },
  // Subresources are authorized apart from their parents: an allowed status read is served (200).
  { user: 'grace', method: 'GET', url: `${A}/pods/p1/status`, status: 200, allowed: true, ask: { verb: 'get', resource: 'pods', subresource: 'status', namespace: 'ns-a', name: 'p1' } },
  { user: 'grace', method: 'GET', url: `${A}/pods/p1`, status: 403, allowed: false, ask: { verb: 'get', resource: 'pods', namespace: 'ns-a', name: 'p1' } },
  {
    user: 'alice', method: 'GET', url: `${A}/pods/p1/status`, status: 403, allowed: false, ask: { verb: 'get', resource: 'pods', subresource: 'status', namespace: 'ns-a', name: 'p1' },
    message: 'pods "p1" is forbidden: User "alice" cannot get resource "pods/status" in API group "" in the namespace "ns-a"',
  },
  { user: 'henry', method: 'GET', url: '/apis/apps/v1/namespaces/ns-a/deployments/web/status', status: 200, allowed: true, ask: { verb: 'get', group: 'apps', resource: 'deployments', subresource: 'status', namespace: 'ns-a', name: 'web' } },
  { user: 'henry', method: 'GET', url: '/apis/apps/v1/namespaces/ns-a/deployments/web', status: 403, allowed: false, ask: { verb: 'get', group: 'apps', resource: 'deployments', namespace: 'ns-a', name: 'web' } },
  // Cluster-scoped types are authorized at the cluster scope.
  { user: 'ivy', method: 'GET', url: '/api/v1/namespaces', status: 403, allowed: false, ask: { verb: 'list', resource: 'namespaces' } },
  // The default user-facing roles, bound in a namespace (view, edit, admin are aggregated).
  { user: 'ivy', method: 'GET', url: `${A}/pods`, status: 200, allowed: true, ask: { verb: 'list', resource: 'pods', namespace: 'ns-a' } },
  { user: 'ivy', method: 'GET', url: `${A}/secrets`, status: 403, allowed: false, ask: { verb: 'list', resource: 'secrets', namespace: 'ns-a' } },
  { user: 'ivy', method: 'POST', url: `${A}/configmaps`, body: configMap('by-ivy'), status: 403, allowed: false, ask: { verb: 'create', resource: 'configmaps', namespace: 'ns-a' } },
  { user: 'jack', method: 'POST', url: `${A}/configmaps`, body: configMap('by-jack'), status: 201, allowed: true, ask: { verb: 'create', resource: 'configmaps', namespace: 'ns-a' } },
  { user: 'jack', method: 'GET', url: `${A}/secrets`, status: 200, allowed: true, ask: { verb: 'list', resource: 'secrets', namespace: 'ns-a' } },
  {
    user: 'jack', method: 'POST', url: '/apis/rbac.authorization.k8s.io/v1/namespaces/ns-a/roles', body: role('ns-a', 'by-jack', []), status: 403, allowed: false,
    ask: { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'roles', namespace: 'ns-a' },
  },
  {
    user: 'kate', method: 'POST', url: '/apis/rbac.authorization.k8s.io/v1/namespaces/ns-a/roles', body: role('ns-a', 'by-kate', []), status: 201, allowed: true,
    ask: { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'roles', namespace: 'ns-a' },
  },
  { user: 'kate', method: 'GET', url: `${A}/pods`, status: 200, allowed: true, ask: { verb: 'list', resource: 'pods', namespace: 'ns-a' } },
  // Non-resource URLs.
  { user: 'frank', method: 'GET', url: '/openapi/v3', status: 200, allowed: true, ask: { path: '/openapi/v3', verb: 'get' } },
  {
    user: 'frank', method: 'GET', url: '/version', status: 403, allowed: false, ask: { path: '/version', verb: 'get' },
    message: 'forbidden: User "frank" cannot get path "/version"',
  },
  { user: 'nobody', method: 'GET', url: '/api', status: 403, allowed: false, ask: { path: '/api', verb: 'get' }, message: 'forbidden: User "nobody" cannot get path "/api"' },
  { user: 'nobody', method: 'GET', url: '/apis/apps/v1', status: 403, allowed: false, ask: { path: '/apis/apps/v1', verb: 'get' } },
  { user: 'alice', method: 'GET', url: '/apis/apps/v1', status: 200, allowed: true, ask: { path: '/apis/apps/v1', verb: 'get' } },
  { user: 'alice', method: 'GET', url: '/version', status: 200, allowed: true, ask: { path: '/version', verb: 'get' } },
  // system:masters may do anything.
  { user: 'admin', method: 'GET', url: '/api/v1/secrets', status: 200, allowed: true, ask: { verb: 'list', resource: 'secrets' } },
  { user: 'admin', method: 'GET', url: '/version', status: 200, allowed: true, ask: { path: '/version', verb: 'get' } },
];

describe('the authorization matrix', () => {
  let server: AuthzServer;

  beforeAll(async () => {
    server = await startAuthzServer('memory');
    for (const ns of ['ns-a', 'ns-b']) expect((await server.as('admin', 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
    // The pod's account (the controller manager's serviceaccount loop makes it in a cluster).
    expect((await server.as('admin', 'POST', `${A}/serviceaccounts`, { metadata: { name: 'default' } })).status).toBe(201);
    expect((await server.as('admin', 'POST', `${A}/pods`, pod('p1'))).status).toBe(201);
    for (const name of ['allowed-cm', 'other-cm']) expect((await server.as('admin', 'POST', `${B}/configmaps`, configMap(name))).status).toBe(201);
    await applyRbac(server, [
      role('ns-a', 'pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }]),
      roleBinding('ns-a', 'alice-reads', 'Role', 'pod-reader', [subject('User', 'alice')]),
      clusterRole('cm-editor', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['*'] }]),
      roleBinding('ns-b', 'team-b-edits', 'ClusterRole', 'cm-editor', [subject('Group', 'team-b')]),
      clusterRole('one-cm', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['allowed-cm'], verbs: ['get', 'list', 'watch'] }]),
      clusterRoleBinding('dave-one-cm', 'one-cm', [subject('User', 'dave')]),
      clusterRole('deployer', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'get', 'list'] }]),
      roleBinding('ns-a', 'builder-deploys', 'ClusterRole', 'deployer', [subject('ServiceAccount', 'builder', 'ns-a')]),
      clusterRole('lease-lister', [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list'] }]),
      clusterRoleBinding('erin-leases', 'lease-lister', [subject('User', 'erin')]),
      clusterRole('pod-status', [{ apiGroups: [''], resources: ['pods/status'], verbs: ['get'] }]),
      clusterRoleBinding('grace-status', 'pod-status', [subject('User', 'grace')]),
      clusterRole('any-status', [{ apiGroups: ['*'], resources: ['*/status'], verbs: ['get'] }]),
      clusterRoleBinding('henry-status', 'any-status', [subject('User', 'henry')]),
      clusterRole('openapi-reader', [{ nonResourceURLs: ['/openapi/*', '/openapi/v3'], verbs: ['get'] }]),
      clusterRoleBinding('frank-openapi', 'openapi-reader', [subject('User', 'frank')]),
      roleBinding('ns-a', 'ivy-views', 'ClusterRole', 'view', [subject('User', 'ivy')]),
      roleBinding('ns-a', 'jack-edits', 'ClusterRole', 'edit', [subject('User', 'jack')]),
      roleBinding('ns-a', 'kate-admins', 'ClusterRole', 'admin', [subject('User', 'kate')]),
    ]);
  });
  afterAll(() => server.close());

  describe.each(rows)('$user $method $url', (row) => {
    it(row.allowed ? `is allowed (${row.status})` : 'is forbidden (403)', async () => {
      const res = await server.as(row.user, row.method, row.url, row.body, row.contentType);
      expect(res.status, JSON.stringify(res.body)).toBe(row.allowed ? row.status : 403);
      if (!row.allowed) {
        expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403 });
        if (row.message) expect(res.body.message).toBe(row.message);
      }
    });

    it(`gets the same answer from a SubjectAccessReview (allowed: ${row.allowed})`, async () => {
      const user = USERS[row.user];
      const attributes = 'path' in row.ask ? { nonResourceAttributes: row.ask } : { resourceAttributes: row.ask };
      const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: user.name, groups: user.groups, ...attributes } };
      const res = await server.as('admin', 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', review);
      expect(res.status).toBe(201);
      expect(res.body.status.allowed).toBe(row.allowed);
      if (row.allowed && row.user !== 'admin') expect(res.body.status.reason).toMatch(/^RBAC: allowed by (Cluster)?RoleBinding "/);
    });
  });

  it('needs the same permission for a dry run as for the real request', async () => {
    const dry = (user: UserName, url: string, body: unknown) => server.as(user, 'POST', `${url}?dryRun=All`, body);
    expect((await dry('bob', `${B}/configmaps`, configMap('dry-b'))).status).toBe(201);
    expect((await dry('carol', `${B}/configmaps`, configMap('dry-c'))).status).toBe(403);
    expect((await dry('alice', `${A}/pods`, pod('dry-p'))).status).toBe(403);
    expect((await server.as('alice', 'DELETE', `${A}/pods/p1?dryRun=All`)).status).toBe(403);
    expect((await server.as('bob', 'DELETE', `${B}/configmaps/other-cm?dryRun=All`)).status).toBe(200);
    expect((await server.as('dave', 'DELETE', `${B}/configmaps/allowed-cm?dryRun=All`)).status).toBe(403);
    // Nothing was written by the dry runs.
    expect((await server.as('admin', 'GET', `${B}/configmaps/dry-b`)).status).toBe(404);
    expect((await server.as('admin', 'GET', `${A}/pods/p1`)).status).toBe(200);
    expect((await server.as('admin', 'GET', `${B}/configmaps/other-cm`)).status).toBe(200);
  });

  it('names the binding that allowed a request, in Kubernetes words', async () => {
    const sar = (spec: object) =>
      server.as('admin', 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });
    const alice = await sar({ user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'ns-a' } });
    expect(alice.body.status.reason).toBe('RBAC: allowed by RoleBinding "alice-reads/ns-a" of Role "pod-reader" to User "alice"');
    const bob = await sar({ user: 'bob', groups: ['team-b'], resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'ns-b' } });
    expect(bob.body.status.reason).toBe('RBAC: allowed by RoleBinding "team-b-edits/ns-b" of ClusterRole "cm-editor" to Group "team-b"');
    const builder = await sar({ user: 'system:serviceaccount:ns-a:builder', resourceAttributes: { verb: 'get', group: 'apps', resource: 'deployments', namespace: 'ns-a' } });
    expect(builder.body.status.reason).toBe('RBAC: allowed by RoleBinding "builder-deploys/ns-a" of ClusterRole "deployer" to ServiceAccount "builder/ns-a"');
    const erin = await sar({ user: 'erin', resourceAttributes: { verb: 'list', group: 'coordination.svc.io', resource: 'leases' } });
    expect(erin.body.status.reason).toBe('RBAC: allowed by ClusterRoleBinding "erin-leases" of ClusterRole "lease-lister" to User "erin"');
    // Groups in a review are exactly the ones given: team-b's grant is not bob's by name.
    const bobAlone = await sar({ user: 'bob', resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'ns-b' } });
    expect(bobAlone.body.status.allowed).toBe(false);
  });
});
