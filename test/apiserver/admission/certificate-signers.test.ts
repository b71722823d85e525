// CertificateApproval and CertificateSigning: approving or denying a CertificateSigningRequest needs
// `approve` on `signers` (certificates.k8s.io) for its signerName (or the signer's domain with `/*`),
// writing its certificate needs `sign`; RBAC users allowed and refused, a refusal a 403 Status that
// changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_CERTIFICATES, FIXTURE_CSR } from '../../support/pem-fixtures.js';
import { applyRbac, clusterRole, clusterRoleBinding, startAuthzServer, subject, type AuthzServer, type UserName } from '../authz/harness.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
let s: AuthzServer;

const csr = (name: string, signerName: string) => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request: FIXTURE_CSR, signerName, usages: ['client auth'] },
});

/** Update on the subresource (the authorizer's question), and `verb` on the named signers (admission's). */
const signerRole = (name: string, subresource: string, verb: string, signers: string[]) =>
  clusterRole(name, [
    { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['get', 'list'] },
    { apiGroups: ['certificates.k8s.io'], resources: [`certificatesigningrequests/${subresource}`], verbs: ['update'] },
    ...(signers.length > 0 ? [{ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: signers, verbs: [verb] }] : []),
  ]);
const bind = (role: string, user: string) => clusterRoleBinding(`${role}-${user}`, role, [subject('User', user)]);

beforeAll(async () => {
  s = await startAuthzServer('memory');
  await applyRbac(s, [
    signerRole('widgets-approver', 'approval', 'approve', ['example.com/widgets']),
    signerRole('example-org-approver', 'approval', 'approve', ['example.org/*']),
    signerRole('approval-writer', 'approval', 'approve', []),
    signerRole('widgets-signer', 'status', 'sign', ['example.com/widgets']),
    signerRole('status-writer', 'status', 'sign', []),
    bind('widgets-approver', 'alice'),
    bind('example-org-approver', 'bob'),
    bind('approval-writer', 'carol'),
    bind('widgets-signer', 'dave'),
    bind('status-writer', 'erin'),
  ]);
  for (const [name, signer] of [
    ['w1', 'example.com/widgets'],
    ['w2', 'example.com/widgets'],
    ['o1', 'example.org/other'],
    ['w3', 'example.com/widgets'],
  ] as const) {
    const res = await s.as('admin', 'POST', CSRS, csr(name, signer));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
});
afterAll(() => s.close());

async function approveAs(user: UserName, name: string, type: 'Approved' | 'Denied' = 'Approved') {
  const current = (await s.as('admin', 'GET', `${CSRS}/${name}`)).body;
  return s.as(user, 'PUT', `${CSRS}/${name}/approval`, { ...current, status: { conditions: [{ type, status: 'True', reason: 'ByTest', message: `by ${user}` }] } });
}

const conditionsOf = async (name: string) => ((await s.as('admin', 'GET', `${CSRS}/${name}`)).body.status?.conditions ?? []) as { type: string }[];

describe('CertificateApproval', () => {
  it('lets a user with approve on the signer approve its requests', async () => {
    const res = await approveAs('alice', 'w1');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await conditionsOf('w1')).map((c) => c.type)).toEqual(['Approved']);
  });

  it('refuses the same user for another signer with a 403 Status, changing nothing', async () => {
    const res = await approveAs('alice', 'o1');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403 });
    expect(res.body.message).toMatch(/^certificatesigningrequests\.certificates\.(svc\.io|k8s\.io) "o1" is forbidden: user not permitted to approve requests with signerName "example\.org\/other"$/);
    expect(await conditionsOf('o1')).toEqual([]);
  });

  it('accepts approve on the signer\'s whole domain (example.org/*), denials included', async () => {
    const res = await approveAs('bob', 'o1', 'Denied');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await conditionsOf('o1')).map((c) => c.type)).toEqual(['Denied']);
    expect((await approveAs('bob', 'w2')).status).toBe(403);
  });

  it('refuses a user who may write approvals but approve no signer', async () => {
    const res = await approveAs('carol', 'w2');
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('user not permitted to approve requests with signerName "example.com/widgets"');
    expect(await conditionsOf('w2')).toEqual([]);
  });
});

describe('CertificateSigning', () => {
  const writeStatus = async (user: UserName, name: string, status: Record<string, unknown>) => {
    const current = (await s.as('admin', 'GET', `${CSRS}/${name}`)).body;
    return s.as(user, 'PUT', `${CSRS}/${name}/status`, { ...current, status: { ...current.status, ...status } });
  };
  const certificateOf = async (name: string) => (await s.as('admin', 'GET', `${CSRS}/${name}`)).body.status?.certificate;

  beforeAll(async () => {
    expect((await approveAs('admin', 'w3')).status).toBe(200);
  });

  it('refuses to write a certificate without sign on the signer (403), storing none', async () => {
    const res = await writeStatus('erin', 'w3', { certificate: FIXTURE_CERTIFICATES[0] });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(res.body.message).toContain('user not permitted to sign requests with signerName "example.com/widgets"');
    expect(await certificateOf('w3')).toBeUndefined();
  });

  it('lets the same user write conditions that leave the certificate alone', async () => {
    const current = (await s.as('admin', 'GET', `${CSRS}/w3`)).body;
    const conditions = [...current.status.conditions, { type: 'Failed', status: 'False', reason: 'NotYet', message: 'still trying' }];
    const res = await writeStatus('erin', 'w3', { conditions });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('lets a user with sign on the signer issue and replace the certificate', async () => {
    const issued = await writeStatus('dave', 'w3', { certificate: FIXTURE_CERTIFICATES[0] });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(await certificateOf('w3')).toBe(FIXTURE_CERTIFICATES[0]);
    // Replacing it is signing too: erin still may not.
    expect((await writeStatus('erin', 'w3', { certificate: FIXTURE_CERTIFICATES[1] })).status).toBe(403);
    expect(await certificateOf('w3')).toBe(FIXTURE_CERTIFICATES[0]);
  });
});
