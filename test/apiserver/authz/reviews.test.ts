import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRbac, role, roleBinding, startAuthzServer, subject, tokenOf, type AuthzServer } from './harness.js';

const AUTHZ = '/apis/authorization.k8s.io/v1';
const SAR = `${AUTHZ}/subjectaccessreviews`;

describe('the review types', () => {
  let server: AuthzServer;
  beforeAll(async () => {
    server = await startAuthzServer('memory');
    expect((await server.as('admin', 'POST', '/api/v1/namespaces', { metadata: { name: 'ns-a' } })).status).toBe(201);
    await applyRbac(server, [
      role('ns-a', 'pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]),
      roleBinding('ns-a', 'alice-reads', 'Role', 'pod-reader', [subject('User', 'alice')]),
      roleBinding('ns-a', 'ghost', 'Role', 'missing-role', [subject('User', 'carol')]),
    ]);
  });
  afterAll(() => server.close());

  it('answers a SelfSubjectAccessReview for the caller, in the API version the client used', async () => {
    const ask = (ns: string) => ({ kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: { resourceAttributes: { verb: 'list', resource: 'pods', namespace: ns } } });
    const yes = await server.as('alice', 'POST', `${AUTHZ}/selfsubjectaccessreviews`, ask('ns-a'));
    expect(yes.status).toBe(201);
    expect(yes.body).toMatchObject({ kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', status: { allowed: true } });
    const no = await server.as('alice', 'POST', `${AUTHZ}/selfsubjectaccessreviews`, ask('default'));
    expect(no.body.status.allowed).toBe(false);
    const svc = await server.as('alice', 'POST', '/apis/authorization.svc.io/v1/selfsubjectaccessreviews', ask('ns-a'));
    expect(svc.body.apiVersion).toBe('authorization.svc.io/v1');
  });

  it('lets only those granted it ask about others (SubjectAccessReview needs create on subjectaccessreviews)', async () => {
    const review = { kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: { user: 'bob', resourceAttributes: { verb: 'get', resource: 'pods' } } };
    const res = await server.as('alice', 'POST', SAR, review);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(
      'subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope',
    );
  });

  it('names a binding whose role is missing in the refusal', async () => {
    const res = await server.as('admin', 'POST', SAR, { spec: { user: 'carol', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'ns-a' } } });
    expect(res.body.status).toEqual({ allowed: false, reason: 'RBAC: [role.rbac.authorization.k8s.io "missing-role" not found]' });
    const real = await server.as('carol', 'GET', '/api/v1/namespaces/ns-a/pods/x');
    expect(real.status).toBe(403);
    expect(real.body.message).toMatch(/: RBAC: \[role\.rbac\.authorization\.k8s\.io "missing-role" not found\]$/);
  });

  it('answers a LocalSubjectAccessReview in its namespace only', async () => {
    const lsar = (pathNs: string, ns: string) =>
      server.as('admin', 'POST', `${AUTHZ}/namespaces/${pathNs}/localsubjectaccessreviews`, {
        kind: 'LocalSubjectAccessReview',
        apiVersion: 'authorization.k8s.io/v1',
        spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods', namespace: ns } },
      });
    const ok = await lsar('ns-a', 'ns-a');
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ metadata: { namespace: 'ns-a' }, status: { allowed: true } });
    const wrong = await lsar('ns-a', 'default');
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'spec.resourceAttributes.namespace must match namespace: ns-a' });
  });

  it('lists the caller\'s rules in a namespace (SelfSubjectRulesReview)', async () => {
    const res = await server.as('alice', 'POST', `${AUTHZ}/selfsubjectrulesreviews`, { spec: { namespace: 'ns-a' } });
    expect(res.status).toBe(201);
    expect(res.body.status.incomplete).toBe(false);
    expect(res.body.status.resourceRules).toContainEqual({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] });
    // system:basic-user and system:discovery, bound to every authenticated user.
    expect(res.body.status.resourceRules).toContainEqual(expect.objectContaining({ resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] }));
    expect(res.body.status.nonResourceRules).toContainEqual(expect.objectContaining({ nonResourceURLs: expect.arrayContaining(['/api', '/version']) }));
    expect((await server.as('alice', 'POST', `${AUTHZ}/selfsubjectrulesreviews`, { spec: {} })).status).toBe(400);
  });

  it('reviews tokens with the server\'s own authenticator', async () => {
    const review = (spec: object) => server.as('admin', 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec });
    const good = await review({ token: tokenOf('bob') });
    expect(good.status).toBe(201);
    expect(good.body).toMatchObject({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      status: { authenticated: true, user: { username: 'bob', uid: 'u-bob', groups: ['team-b', 'system:authenticated'] }, audiences: ['https://kubernetes.default.svc.cluster.local'] },
    });
    const bad = await review({ token: 'not-a-token' });
    expect(bad.body.status).toMatchObject({ authenticated: false });
    expect(bad.body.status.error).toBeTruthy();
    const otherAudience = await review({ token: tokenOf('bob'), audiences: ['vault'] });
    expect(otherAudience.body.status.authenticated).toBe(false);
    expect((await review({})).status).toBe(400);
    expect((await server.as('alice', 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token: 'x' } })).status).toBe(403);
  });

  describe('bad review bodies get a Status and change nothing', () => {
    const cases: [string, unknown, number, string | undefined][] = [
      ['not JSON', '{"spec":', 400, 'BadRequest'],
      ['not an object', '[1,2]', 400, 'BadRequest'],
      ['a spec of the wrong type', { spec: 'everything' }, 400, 'BadRequest'],
      ['attributes of the wrong type', { spec: { user: 'x', resourceAttributes: { verb: 7 } } }, 400, 'BadRequest'],
      ['another kind', { kind: 'Pod', spec: { user: 'x', resourceAttributes: {} } }, 400, 'BadRequest'],
      ['no spec', {}, 400, 'BadRequest'],
      ['both kinds of attributes', { spec: { user: 'x', resourceAttributes: {}, nonResourceAttributes: {} } }, 422, 'Invalid'],
      ['neither kind of attributes', { spec: { user: 'x' } }, 422, 'Invalid'],
      ['no user and no groups', { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } }, 422, 'Invalid'],
    ];
    it.each(cases)('%s', async (_what, body, code, reason) => {
      const res = await server.as('admin', 'POST', SAR, body);
      expect(res.status).toBe(code);
      expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', code, reason });
    });

    it('a bad dryRun value', async () => {
      const res = await server.as('admin', 'POST', `${SAR}?dryRun=Some`, { spec: { user: 'x', resourceAttributes: {} } });
      expect(res.status).toBe(400);
    });
  });

  it('serves the review types as create-only, in discovery and on the wire', async () => {
    const doc = await server.as('alice', 'GET', '/apis/authorization.svc.io/v1');
    expect(doc.status).toBe(200);
    const names = doc.body.resources.map((r: { name: string; verbs: string[] }) => [r.name, r.verbs]);
    expect(names).toEqual(
      expect.arrayContaining([
        ['subjectaccessreviews', ['create']],
        ['selfsubjectaccessreviews', ['create']],
        ['localsubjectaccessreviews', ['create']],
        ['selfsubjectrulesreviews', ['create']],
      ]),
    );
    const authn = await server.as('alice', 'GET', '/apis/authentication.svc.io/v1');
    expect(authn.body.resources).toEqual([expect.objectContaining({ name: 'tokenreviews', verbs: ['create'], namespaced: false })]);
    expect((await server.as('admin', 'GET', SAR)).status).toBe(405);
    expect((await server.as('admin', 'GET', `${SAR}/x`)).status).toBe(405);
  });
});
