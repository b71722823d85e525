// The certificate loops on the test kit: csrsigning signs approved requests of the built-in signers
// with their CA (lifetime: --cluster-signing-duration or expirationSeconds, the shorter), fails the
// ones its signer must not sign (disallowed usages, wrong subject) naming the problem and signing
// nothing, leaves other signers' requests alone; csrapproving approves node client requests after a
// SubjectAccessReview and nothing else; csrcleaner deletes requests at upstream's ages. The API
// server refuses malformed requests, unknown svc.io signers and unknown usages with a 422.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError, type CertificateSigningRequest } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { builtinLoops, csrApprovingController, csrCleanerController, csrSigningController } from '../../controllers/index.js';
import {
  createCertificateRequest,
  csrState,
  ensurePki,
  issuedCertificate,
  loadSigningCa,
  SIGNER_NAMES,
  type SignerName,
  type SigningCa,
} from '../../src/pki/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { scratchDir } from '../support/scratch.js';
import { eventually } from './support.js';

const HOUR = 3600_000;
const DURATION = 2 * HOUR;
let clock = Date.now();
let cluster: TestCluster;
let client: Client;
let ca: SigningCa;

const CSR_PATH = '/apis/certificates.svc.io/v1/certificatesigningrequests';

async function csrObject(name: string, signerName: string, usages: string[], subject: Parameters<typeof createCertificateRequest>[0], expirationSeconds?: number): Promise<CertificateSigningRequest> {
  const { requestPem } = await createCertificateRequest(subject);
  return {
    apiVersion: 'certificates.svc.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(requestPem).toString('base64'), signerName, usages, ...(expirationSeconds ? { expirationSeconds } : {}) },
  };
}

async function approve(name: string): Promise<void> {
  const csr = await client.get(builtin.certificateSigningRequests, name);
  const at = new Date(clock).toISOString().replace(/\.\d+Z$/, 'Z');
  const conditions = [...(csr.status?.conditions ?? []), { type: 'Approved', status: 'True', reason: 'ByTest', message: 'approved by the test', lastUpdateTime: at }];
  await client.transport.request({ method: 'PUT', path: `${CSR_PATH}/${name}/approval`, body: { ...csr, status: { ...csr.status, conditions } } });
}

const read = async (name: string) => {
  try {
    return await client.get(builtin.certificateSigningRequests, name);
  } catch (error) {
    if (isStatusError(error) && error.code === 404) return undefined;
    throw error;
  }
};

const NODE = { commonName: 'system:node:worker-1', organizations: ['system:nodes'] };

beforeAll(async () => {
  const dir = scratchDir('svc-csr-');
  await ensurePki(dir, { dns: ['localhost'], ips: ['127.0.0.1'] });
  ca = await loadSigningCa(readFileSync(join(dir, 'ca.crt'), 'utf8'), readFileSync(join(dir, 'ca.key'), 'utf8'), 'test CA');
  // The legacy signer has no CA: its requests are someone else's to sign.
  const signers = new Map<SignerName, SigningCa>(SIGNER_NAMES.filter((s) => s !== 'svc.io/legacy-unknown').map((s) => [s, ca]));
  const loops = new Map(builtinLoops());
  loops.set('certificatesigningrequest-signing-controller', () => (ctx) => csrSigningController(ctx, { signers, durationMs: DURATION, now: () => clock }));
  loops.set('certificatesigningrequest-approving-controller', () => (ctx) => csrApprovingController(ctx, { now: () => clock }));
  loops.set('certificatesigningrequest-cleaner-controller', () => (ctx) => csrCleanerController(ctx, { now: () => clock }));
  cluster = await startTestCluster({
    controllers: {
      controllers: ['certificatesigningrequest-signing-controller', 'certificatesigningrequest-approving-controller', 'certificatesigningrequest-cleaner-controller'],
      loops,
    },
  });
  client = cluster.client;
});
afterAll(() => cluster?.stop());

describe('the API server on CertificateSigningRequests', () => {
  it('refuses a malformed request, an unknown svc.io signer, an unknown usage and a short expiration with a 422 naming the field; stores nothing', async () => {
    const good = await csrObject('bad', 'svc.io/apiserver-client', ['client auth'], { commonName: 'alice' });
    const cases: [CertificateSigningRequest, string][] = [
      [{ ...good, spec: { ...good.spec, request: Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nbm90IGEgcmVxdWVzdA==\n-----END CERTIFICATE REQUEST-----\n').toString('base64') } }, 'spec.request'],
      [{ ...good, spec: { ...good.spec, request: Buffer.from('hello').toString('base64') } }, 'spec.request'],
      [{ ...good, spec: { ...good.spec, signerName: 'svc.io/no-such-signer' } }, 'spec.signerName'],
      [{ ...good, spec: { ...good.spec, signerName: 'no-slash' } }, 'spec.signerName'],
      [{ ...good, spec: { ...good.spec, usages: ['client auth', 'flying'] } }, 'spec.usages[1]'],
      [{ ...good, spec: { ...good.spec, expirationSeconds: 599 } }, 'spec.expirationSeconds'],
    ];
    for (const [body, field] of cases) {
      const error = await client.create(builtin.certificateSigningRequests, body).then(() => undefined, (e: unknown) => e);
      expect(isStatusError(error), field).toBe(true);
      if (!isStatusError(error)) continue;
      expect(error.code, field).toBe(422);
      expect(error.details?.causes?.map((c) => c.field), field).toContain(field);
    }
    expect(await read('bad')).toBeUndefined();
  });

  it('fills the requester from who asks (not the body) and keeps the spec as created', async () => {
    const body = await csrObject('requester', 'example.com/my-signer', ['client auth'], { commonName: 'bob' });
    const created = await client.create(builtin.certificateSigningRequests, { ...body, spec: { ...body.spec, username: 'someone-else', groups: ['system:masters'] } });
    expect(created.spec.username).toBe('svc-testing-admin');
    expect(created.spec.groups).toContain('system:masters');
    const updated = await client.update(builtin.certificateSigningRequests, { ...created, spec: { ...created.spec, signerName: 'example.com/other' } });
    expect(updated.spec.signerName).toBe('example.com/my-signer');
  });

  it('refuses Approved and Denied together', async () => {
    await client.create(builtin.certificateSigningRequests, await csrObject('both', 'example.com/my-signer', ['client auth'], { commonName: 'carol' }));
    const csr = await client.get(builtin.certificateSigningRequests, 'both');
    const conditions = [
      { type: 'Approved', status: 'True', reason: 'A' },
      { type: 'Denied', status: 'True', reason: 'D' },
    ];
    const error = await client.transport.request({ method: 'PUT', path: `${CSR_PATH}/both/approval`, body: { ...csr, status: { conditions } } }).then(() => undefined, (e: unknown) => e);
    expect(isStatusError(error) && error.code).toBe(422);
    expect(csrState(await client.get(builtin.certificateSigningRequests, 'both'))).toBe('pending');
  });
});

describe('csrsigning', () => {
  it('signs an approved request with the signer CA, for the shorter of the duration and expirationSeconds, subject and usages as asked', async () => {
    await client.create(builtin.certificateSigningRequests, await csrObject('client-long', 'svc.io/apiserver-client', ['digital signature', 'client auth'], { commonName: 'dave', organizations: ['devs'] }));
    await client.create(builtin.certificateSigningRequests, await csrObject('client-short', 'kubernetes.io/kube-apiserver-client', ['client auth'], { commonName: 'erin' }, 900));
    // Not approved: nothing is signed.
    await client.create(builtin.certificateSigningRequests, await csrObject('client-pending', 'svc.io/apiserver-client', ['client auth'], { commonName: 'frank' }));
    await approve('client-long');
    await approve('client-short');
    await eventually(async () => csrState((await read('client-long'))!) === 'issued' && csrState((await read('client-short'))!) === 'issued', 'both signed');
    const long = new X509Certificate(issuedCertificate((await read('client-long'))!)!);
    const short = new X509Certificate(issuedCertificate((await read('client-short'))!)!);
    expect(long.subject).toContain('CN=dave');
    expect(long.subject).toContain('O=devs');
    expect(long.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(long.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(Date.parse(long.validTo) - clock).toBeGreaterThan(DURATION - 60_000);
    expect(Date.parse(long.validTo) - clock).toBeLessThanOrEqual(DURATION + 1000);
    expect(Date.parse(short.validTo) - clock).toBeLessThanOrEqual(900_000 + 1000);
    expect(Date.parse(short.validTo) - clock).toBeGreaterThan(800_000);
    expect(csrState((await read('client-pending'))!)).toBe('pending');
  });

  it('fails a request with usages its signer does not allow, or a subject its certificates are not for, naming the problem; signs nothing', async () => {
    await client.create(builtin.certificateSigningRequests, await csrObject('serving-as-client', 'svc.io/apiserver-client', ['client auth', 'server auth'], { commonName: 'gina' }));
    await client.create(builtin.certificateSigningRequests, await csrObject('serving-no-names', 'svc.io/nodeagent-serving', ['server auth'], NODE));
    await client.create(builtin.certificateSigningRequests, await csrObject('node-not-node', 'svc.io/apiserver-client-nodeagent', ['client auth'], { commonName: 'mallory' }));
    for (const name of ['serving-as-client', 'serving-no-names', 'node-not-node']) await approve(name);
    await eventually(async () => {
      const states = await Promise.all(['serving-as-client', 'serving-no-names', 'node-not-node'].map(async (n) => csrState((await read(n))!)));
      return states.every((s) => s === 'failed');
    }, 'all three failed');
    const failed = (name: string) => read(name).then((csr) => csr!.status!.conditions!.find((c) => c.type === 'Failed')!);
    expect((await failed('serving-as-client')).message).toMatch(/usages not allowed.*server auth/);
    expect((await failed('serving-as-client')).reason).toBe('SignerValidationFailure');
    expect((await failed('serving-no-names')).message).toMatch(/at least one DNS name or IP address/);
    expect((await failed('node-not-node')).message).toMatch(/system:nodes/);
    for (const name of ['serving-as-client', 'serving-no-names', 'node-not-node']) expect((await read(name))!.status?.certificate).toBeUndefined();
  });

  it('leaves requests of signers it has no CA for, and of other domains, unsigned', async () => {
    await client.create(builtin.certificateSigningRequests, await csrObject('legacy', 'svc.io/legacy-unknown', ['client auth'], { commonName: 'henry' }));
    await client.create(builtin.certificateSigningRequests, await csrObject('external', 'example.com/my-signer', ['client auth'], { commonName: 'ivan' }));
    await approve('legacy');
    await approve('external');
    // A request signed after these two shows the loop has seen them.
    await client.create(builtin.certificateSigningRequests, await csrObject('marker', 'svc.io/apiserver-client', ['client auth'], { commonName: 'judy' }));
    await approve('marker');
    await eventually(async () => csrState((await read('marker'))!) === 'issued', 'marker signed');
    expect(csrState((await read('legacy'))!)).toBe('approved');
    expect(csrState((await read('external'))!)).toBe('approved');
  });
});

describe('csrapproving', () => {
  it('approves a node client request its requester may make (SubjectAccessReview); leaves serving and other requests pending', async () => {
    await client.create(builtin.certificateSigningRequests, await csrObject('node-client', 'svc.io/apiserver-client-nodeagent', ['digital signature', 'client auth'], NODE));
    await client.create(builtin.certificateSigningRequests, await csrObject('node-serving', 'svc.io/nodeagent-serving', ['digital signature', 'server auth'], { ...NODE, dnsNames: ['worker-1'] }));
    await client.create(builtin.certificateSigningRequests, await csrObject('node-client-extra-names', 'svc.io/apiserver-client-nodeagent', ['client auth'], { ...NODE, dnsNames: ['worker-1'] }));
    await eventually(async () => csrState((await read('node-client'))!) === 'issued', 'node client approved and signed');
    const approved = (await read('node-client'))!.status!.conditions!.find((c) => c.type === 'Approved')!;
    expect(approved.reason).toBe('AutoApproved');
    expect(csrState((await read('node-serving'))!)).toBe('pending');
    expect(csrState((await read('node-client-extra-names'))!)).toBe('pending');
    // An explicit approval (kubectl certificate approve) gets the serving one signed.
    await approve('node-serving');
    await eventually(async () => csrState((await read('node-serving'))!) === 'issued', 'node serving signed');
    expect(new X509Certificate(issuedCertificate((await read('node-serving'))!)!).subjectAltName).toBe('DNS:worker-1');
  });
});

describe('csrcleaner', () => {
  // A change the loop sees, so it looks at the request again at the test's time (it may have gone already).
  const touch = (name: string, n: number) =>
    client.patch(builtin.certificateSigningRequests, name, { metadata: { annotations: { touched: String(n) } } }).catch((error: unknown) => {
      if (!(isStatusError(error) && error.code === 404)) throw error;
    });

  it('deletes decided requests an hour after the decision and pending ones a day after creation', async () => {
    await client.create(builtin.certificateSigningRequests, await csrObject('old-pending', 'example.com/my-signer', ['client auth'], { commonName: 'kim' }));
    await client.create(builtin.certificateSigningRequests, await csrObject('old-approved', 'example.com/my-signer', ['client auth'], { commonName: 'lee' }));
    await approve('old-approved');
    // Two hours on: the approved one goes, the pending one stays.
    clock += 2 * HOUR;
    await touch('old-pending', 1);
    await touch('old-approved', 1);
    await eventually(async () => (await read('old-approved')) === undefined, 'approved request deleted');
    expect(await read('old-pending')).toBeDefined();
    // A day on: the pending one goes too.
    clock += 24 * HOUR;
    await touch('old-pending', 2);
    await eventually(async () => (await read('old-pending')) === undefined, 'pending request deleted');
  });
});
