import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { patchReply, SERVICE_DNS_NAME, startWebhookServer, type WebhookServer } from './webhook-server.js';

const VWC = '/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations';
const MWC = '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations';
const CM = '/api/v1/namespaces/default/configmaps';

let s: TestServer;
let w: WebhookServer;

beforeAll(async () => {
  s = await startTestServer('memory');
  w = await startWebhookServer();
});
afterAll(async () => {
  await s.close();
  await w.close();
});
afterEach(async () => {
  await s.call('DELETE', VWC);
  await s.call('DELETE', MWC);
  w.received.length = 0;
});

const CONFIGMAP_RULE = { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] };

function hook(name: string, path: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig: { url: `${w.url}${path}`, caBundle: w.caBundle },
    rules: [CONFIGMAP_RULE],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

async function configure(kind: 'Validating' | 'Mutating', name: string, webhooks: unknown[]) {
  const res = await s.call('POST', kind === 'Validating' ? VWC : MWC, {
    apiVersion: 'admissionregistration.svc.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name },
    webhooks,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const configMap = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { k: 'v' } });

describe('validating webhooks', () => {
  it('sends an AdmissionReview v1 with the request attributes and lets an allowed request through', async () => {
    await configure('Validating', 'allow', [hook('allow.example.com', '/allow')]);
    const res = await s.call('POST', `${CM}?fieldManager=tests`, configMap('allowed'));
    expect(res.status).toBe(201);
    const [review] = w.at('/allow');
    expect(review.apiVersion).toBe('admission.k8s.io/v1');
    expect(review.kind).toBe('AdmissionReview');
    const r = review.request;
    expect(r.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.kind).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(r.resource).toEqual({ group: '', version: 'v1', resource: 'configmaps' });
    expect(r.requestKind).toEqual(r.kind);
    expect(r.subResource).toBeUndefined();
    expect(r.name).toBe('allowed');
    expect(r.namespace).toBe('default');
    expect(r.operation).toBe('CREATE');
    expect(r.userInfo).toEqual({ username: 'tester', uid: 'u-1', groups: ['system:masters', 'system:authenticated'] });
    expect(r.object.data).toEqual({ k: 'v' });
    expect(r.oldObject).toBeNull();
    expect(r.dryRun).toBe(false);
    expect(r.options).toMatchObject({ kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'tests' });
  });

  it('sends the old object on UPDATE and DELETE', async () => {
    await s.call('POST', CM, configMap('updated'));
    await configure('Validating', 'all-ops', [hook('ops.example.com', '/ops', { rules: [{ ...CONFIGMAP_RULE, operations: ['*'] }] })]);
    const current = (await s.call('GET', `${CM}/updated`)).body;
    expect((await s.call('PUT', `${CM}/updated`, { ...current, data: { k: 'w' } })).status).toBe(200);
    expect((await s.call('DELETE', `${CM}/updated`)).status).toBe(200);
    const [update, del] = w.at('/ops').map((r) => r.request);
    expect(update.operation).toBe('UPDATE');
    expect(update.object.data).toEqual({ k: 'w' });
    expect(update.oldObject.data).toEqual({ k: 'v' });
    expect(update.options.kind).toBe('UpdateOptions');
    expect(del.operation).toBe('DELETE');
    expect(del.object).toBeNull();
    expect(del.oldObject.metadata.name).toBe('updated');
    expect(del.options.kind).toBe('DeleteOptions');
  });

  it('answers a denial with the webhook message, code and reason, and stores nothing', async () => {
    w.on('/deny', (review) => ({ response: { uid: review.request.uid, allowed: false, status: { code: 422, reason: 'Invalid', message: 'k must not be v' } } }));
    await configure('Validating', 'deny', [hook('deny.example.com', '/deny')]);
    const res = await s.call('POST', CM, configMap('denied'));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422, message: 'admission webhook "deny.example.com" denied the request: k must not be v' });
    expect((await s.call('GET', `${CM}/denied`)).status).toBe(404);
  });

  it('answers 403 Forbidden to a denial without a code', async () => {
    w.on('/deny-plain', (review) => ({ response: { uid: review.request.uid, allowed: false, status: { message: 'no' } } }));
    await configure('Validating', 'deny-plain', [hook('plain.example.com', '/deny-plain')]);
    const res = await s.call('POST', CM, configMap('denied-plain'));
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('Forbidden');
    expect(res.body.message).toBe('admission webhook "plain.example.com" denied the request: no');
  });

  it('turns response warnings into Warning headers', async () => {
    w.on('/warn', (review) => ({ response: { uid: review.request.uid, allowed: true, warnings: ['data.k is deprecated'] } }));
    await configure('Validating', 'warn', [hook('warn.example.com', '/warn')]);
    const res = await s.call('POST', CM, configMap('warned'));
    expect(res.status).toBe(201);
    expect([res.headers['warning']].flat()).toEqual(['299 - "data.k is deprecated"']);
  });

  it('fails with 500 InternalError when a Fail webhook times out, and proceeds when it is Ignore', async () => {
    w.on('/hang', () => ({ hang: true }));
    await configure('Validating', 'slow', [hook('slow.example.com', '/hang', { timeoutSeconds: 1 })]);
    const failed = await s.call('POST', CM, configMap('slow-fail'));
    expect(failed.status).toBe(500);
    expect(failed.body.reason).toBe('InternalError');
    expect(failed.body.message).toContain('failed calling webhook "slow.example.com"');
    expect(failed.body.message).toContain('context deadline exceeded');
    expect((await s.call('GET', `${CM}/slow-fail`)).status).toBe(404);

    await s.call('DELETE', VWC);
    await configure('Validating', 'slow-ignored', [hook('slow.example.com', '/hang', { timeoutSeconds: 1, failurePolicy: 'Ignore' })]);
    expect((await s.call('POST', CM, configMap('slow-ignore'))).status).toBe(201);
  });

  it('applies failurePolicy when the webhook refuses connections', async () => {
    const closed = { url: 'https://127.0.0.1:1/refused', caBundle: w.caBundle };
    await configure('Validating', 'refused', [{ ...hook('refused.example.com', '/'), clientConfig: closed }]);
    const failed = await s.call('POST', CM, configMap('refused-fail'));
    expect(failed.status).toBe(500);
    expect(failed.body.message).toMatch(/^Internal error occurred: failed calling webhook "refused.example.com": failed to call webhook: Post "https:\/\/127.0.0.1:1\/refused"/);

    await s.call('DELETE', VWC);
    await configure('Validating', 'refused', [{ ...hook('refused.example.com', '/'), clientConfig: closed, failurePolicy: 'Ignore' }]);
    expect((await s.call('POST', CM, configMap('refused-ignore'))).status).toBe(201);
  });

  it('refuses a webhook whose certificate the caBundle does not verify', async () => {
    const otherCa = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIBATAKBggqhkjOPQQDAjAAMB4XDTI0MDEwMTAwMDAwMFoXDTM0MDEwMTAwMDAwMFowADBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABA==\n-----END CERTIFICATE-----\n').toString('base64');
    await configure('Validating', 'untrusted', [{ ...hook('untrusted.example.com', '/allow'), clientConfig: { url: `${w.url}/allow`, caBundle: otherCa } }]);
    const res = await s.call('POST', CM, configMap('untrusted'));
    expect(res.status).toBe(500);
    expect(res.body.message).toContain('failed calling webhook "untrusted.example.com"');
    expect(w.at('/allow')).toHaveLength(0);
  });

  it.each([
    ['not JSON', () => ({ raw: 'hello' }), 'the response is not JSON'],
    ['a wrong uid', () => ({ response: { uid: 'not-the-uid', allowed: true } }), 'expected response.uid='],
    ['a wrong apiVersion', (review: any) => ({ envelope: { apiVersion: 'admission.k8s.io/v1beta1' }, response: { uid: review.request.uid, allowed: true } }), 'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview'],
    ['a wrong kind', (review: any) => ({ envelope: { kind: 'Pod' }, response: { uid: review.request.uid, allowed: true } }), 'Kind=AdmissionReview, got admission.k8s.io/v1, Kind=Pod'],
    ['no allowed field', (review: any) => ({ response: { uid: review.request.uid } }), 'response.allowed must be a boolean'],
    ['a non-200 status', () => ({ raw: '{}', status: 500 }), 'responded with status 500'],
    ['an oversized body', () => ({ raw: 'x'.repeat(3 * 1024 * 1024 + 10) }), 'larger than'],
  ])('answers a reply with %s as a failed call (Fail: 500, nothing stored)', async (_what, script, message) => {
    w.on('/bad', script as never);
    await configure('Validating', 'bad', [hook('bad.example.com', '/bad')]);
    const res = await s.call('POST', CM, configMap('bad-reply'));
    expect(res.status).toBe(500);
    expect(res.body.reason).toBe('InternalError');
    expect(res.body.message).toContain('failed calling webhook "bad.example.com"');
    expect(res.body.message).toContain(message);
    expect((await s.call('GET', `${CM}/bad-reply`)).status).toBe(404);
  });

  it('proceeds past a malformed reply from an Ignore webhook', async () => {
    w.on('/garbage', () => ({ raw: '<html>' }));
    await configure('Validating', 'garbage', [hook('garbage.example.com', '/garbage', { failurePolicy: 'Ignore' })]);
    expect((await s.call('POST', CM, configMap('garbage-ignored'))).status).toBe(201);
  });
});

describe('mutating webhooks', () => {
  it('applies a JSONPatch reply, and the stored object shows it', async () => {
    w.on('/label', (review) => patchReply(review, [{ op: 'add', path: '/metadata/labels', value: { injected: 'yes' } }, { op: 'add', path: '/data/added', value: 'by-webhook' }]));
    await configure('Mutating', 'label', [hook('label.example.com', '/label')]);
    const res = await s.call('POST', CM, configMap('mutated'));
    expect(res.status).toBe(201);
    expect(res.body.metadata.labels).toEqual({ injected: 'yes' });
    const stored = (await s.call('GET', `${CM}/mutated`)).body;
    expect(stored.metadata.labels).toEqual({ injected: 'yes' });
    expect(stored.data).toEqual({ k: 'v', added: 'by-webhook' });
  });

  it('runs the mutated object through validation again (422 for an invalid mutation)', async () => {
    w.on('/invalid', (review) => patchReply(review, [{ op: 'add', path: '/data/bad key!', value: 'x' }]));
    await configure('Mutating', 'invalid', [hook('invalid.example.com', '/invalid')]);
    const res = await s.call('POST', CM, configMap('invalid-mutation'));
    expect(res.status).toBe(422);
    expect((await s.call('GET', `${CM}/invalid-mutation`)).status).toBe(404);
  });

  it.each([
    ['a patch that does not apply', (review: any) => patchReply(review, [{ op: 'replace', path: '/spec/missing', value: 1 }]), 'the patch does not apply'],
    ['an unknown patch type', (review: any) => ({ response: { uid: review.request.uid, allowed: true, patchType: 'MergePatch', patch: Buffer.from('{}').toString('base64') } }), 'unsupported patch type "MergePatch"'],
    ['a patch that is not base64 JSON', (review: any) => ({ response: { uid: review.request.uid, allowed: true, patchType: 'JSONPatch', patch: '!!!' } }), 'not a base64-encoded JSON patch'],
    ['a patch that renames the object', (review: any) => patchReply(review, [{ op: 'replace', path: '/metadata/name', value: 'other' }]), 'changed the name'],
    ['a patch into /__proto__ (keys are data: no such path)', (review: any) => patchReply(review, [{ op: 'add', path: '/__proto__/polluted', value: 1 }]), '/__proto__ does not exist'],
    ['a move into its own child', (review: any) => patchReply(review, [{ op: 'move', from: '/data', path: '/data/x' }]), 'its own child'],
  ])('answers %s as a failed call and stores nothing', async (_what, script, message) => {
    w.on('/badpatch', script as never);
    await configure('Mutating', 'badpatch', [hook('badpatch.example.com', '/badpatch')]);
    const res = await s.call('POST', CM, configMap('bad-patch'));
    expect(res.status).toBe(500);
    expect(res.body.message).toContain('failed calling webhook "badpatch.example.com": received invalid webhook response');
    expect(res.body.message).toContain(message);
    expect((await s.call('GET', `${CM}/bad-patch`)).status).toBe(404);
    expect((await s.call('GET', `${CM}/other`)).status).toBe(404);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('calls a webhook with reinvocationPolicy IfNeeded again when a later webhook changed the object', async () => {
    w.on('/first', (review) => patchReply(review, [{ op: 'add', path: `/data/first${w.at('/first').length}`, value: JSON.stringify(Object.keys(review.request.object.data)) }]));
    w.on('/second', (review) => patchReply(review, [{ op: 'add', path: '/data/second', value: 'x' }]));
    await configure('Mutating', 'a-first', [hook('first.example.com', '/first', { reinvocationPolicy: 'IfNeeded' })]);
    await configure('Mutating', 'b-second', [hook('second.example.com', '/second')]);
    const res = await s.call('POST', CM, configMap('reinvoked'));
    expect(res.status).toBe(201);
    expect(w.at('/first')).toHaveLength(2);
    expect(w.at('/second')).toHaveLength(1);
    // The second call saw the second webhook's change.
    expect(w.at('/first')[1].request.object.data.second).toBe('x');
    expect(res.body.data).toMatchObject({ second: 'x', first1: '["k"]' });
  });

  it('does not call an IfNeeded webhook again when nothing changed after it', async () => {
    await configure('Mutating', 'only', [hook('only.example.com', '/only', { reinvocationPolicy: 'IfNeeded' })]);
    expect((await s.call('POST', CM, configMap('not-reinvoked'))).status).toBe(201);
    expect(w.at('/only')).toHaveLength(1);
  });
});

describe('every write path', () => {
  const UPDATE_RULE = { ...CONFIGMAP_RULE, operations: ['UPDATE'] };

  it('runs mutating webhooks on merge patches, JSON patches and applies, storing their change', async () => {
    await s.call('POST', CM, configMap('patched'));
    w.on('/stamp', (review) => patchReply(review, [{ op: 'add', path: '/data/stamped', value: review.request.options.kind }]));
    await configure('Mutating', 'stamp', [hook('stamp.example.com', '/stamp', { rules: [UPDATE_RULE] })]);
    const merge = await s.call('PATCH', `${CM}/patched`, { data: { k: 'merged' } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    expect(merge.status).toBe(200);
    expect(merge.body.data).toEqual({ k: 'merged', stamped: 'PatchOptions' });
    const json = await s.call('PATCH', `${CM}/patched`, [{ op: 'replace', path: '/data/k', value: 'json' }], { headers: { 'content-type': 'application/json-patch+json' } });
    expect(json.body.data).toEqual({ k: 'json', stamped: 'PatchOptions' });
    const applied = await s.call('PATCH', `${CM}/patched?fieldManager=tests&force=true`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'patched' }, data: { k: 'applied' } }, {
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    expect(applied.status).toBe(200);
    expect(applied.body.data).toMatchObject({ k: 'applied', stamped: 'PatchOptions' });
    expect((await s.call('GET', `${CM}/patched`)).body.data).toMatchObject({ k: 'applied', stamped: 'PatchOptions' });
    expect(w.at('/stamp').map((r) => r.request.operation)).toEqual(['UPDATE', 'UPDATE', 'UPDATE']);
  });

  it('refuses a deletecollection when a webhook denies one of its deletes', async () => {
    await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'guarded' } });
    await s.call('POST', '/api/v1/namespaces/guarded/configmaps', configMap('keep'));
    w.on('/guard', (review) => ({ response: { uid: review.request.uid, allowed: false, status: { message: `${review.request.name} is guarded` } } }));
    await configure('Validating', 'guard', [hook('guard.example.com', '/guard', { rules: [{ ...CONFIGMAP_RULE, operations: ['DELETE'] }] })]);
    const res = await s.call('DELETE', '/api/v1/namespaces/guarded/configmaps');
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('admission webhook "guard.example.com" denied the request: keep is guarded');
    expect((await s.call('GET', '/api/v1/namespaces/guarded/configmaps/keep')).status).toBe(200);
  });
});

describe('dry run', () => {
  it.each(['Some', 'Unknown'])('refuses a dry run that would call a webhook with sideEffects %s (400), without calling it', async (sideEffects) => {
    await configure('Validating', 'effects', [hook('effects.example.com', '/effects', { sideEffects })]);
    const res = await s.call('POST', `${CM}?dryRun=All`, configMap('dry-effects'));
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe('BadRequest');
    expect(res.body.message).toBe('admission webhook "effects.example.com" does not support dry run');
    expect(w.at('/effects')).toHaveLength(0);
    // The real request is fine.
    expect((await s.call('POST', CM, configMap(`real-${sideEffects.toLowerCase()}`))).status).toBe(201);
  });

  it('refuses a dry run through a mutating webhook with side effects', async () => {
    await configure('Mutating', 'm-effects', [hook('m-effects.example.com', '/m-effects', { sideEffects: 'Some' })]);
    expect((await s.call('POST', `${CM}?dryRun=All`, configMap('dry-m'))).status).toBe(400);
  });

  it('tells a NoneOnDryRun webhook dryRun: true, applies its patch to the answer and stores nothing', async () => {
    w.on('/dry', (review) => patchReply(review, [{ op: 'add', path: '/metadata/labels', value: { dry: String(review.request.dryRun) } }]));
    await configure('Mutating', 'dry', [hook('dry.example.com', '/dry', { sideEffects: 'NoneOnDryRun' })]);
    const res = await s.call('POST', `${CM}?dryRun=All`, configMap('dry-none'));
    expect(res.status).toBe(201);
    expect(res.body.metadata.labels).toEqual({ dry: 'true' });
    const [review] = w.at('/dry');
    expect(review.request.dryRun).toBe(true);
    expect(review.request.options.dryRun).toEqual(['All']);
    expect((await s.call('GET', `${CM}/dry-none`)).status).toBe(404);
  });
});

describe('matching', () => {
  it('calls only webhooks whose rules cover the operation and resource', async () => {
    await configure('Validating', 'rules', [
      hook('updates.example.com', '/updates', { rules: [{ ...CONFIGMAP_RULE, operations: ['UPDATE'] }] }),
      hook('secrets.example.com', '/secrets', { rules: [{ ...CONFIGMAP_RULE, resources: ['secrets'] }] }),
      hook('apps.example.com', '/apps', { rules: [{ ...CONFIGMAP_RULE, apiGroups: ['apps'] }] }),
      hook('cluster.example.com', '/cluster', { rules: [{ ...CONFIGMAP_RULE, scope: 'Cluster' }] }),
      hook('wild.example.com', '/wild', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }),
      hook('status.example.com', '/status', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/status'] }] }),
    ]);
    expect((await s.call('POST', CM, configMap('matched'))).status).toBe(201);
    expect(w.at('/updates')).toHaveLength(0);
    expect(w.at('/secrets')).toHaveLength(0);
    expect(w.at('/apps')).toHaveLength(0);
    expect(w.at('/cluster')).toHaveLength(0);
    expect(w.at('/status')).toHaveLength(0);
    expect(w.at('/wild')).toHaveLength(1);
  });

  it('selects by the namespace labels (namespaceSelector)', async () => {
    await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', labels: { env: 'prod' } } });
    await configure('Validating', 'ns', [hook('ns.example.com', '/ns', { namespaceSelector: { matchLabels: { env: 'prod' } } })]);
    expect((await s.call('POST', CM, configMap('in-default'))).status).toBe(201);
    expect(w.at('/ns')).toHaveLength(0);
    expect((await s.call('POST', '/api/v1/namespaces/prod/configmaps', configMap('in-prod'))).status).toBe(201);
    expect(w.at('/ns')).toHaveLength(1);
  });

  it('selects by the object labels (objectSelector), with expressions', async () => {
    await configure('Validating', 'obj', [hook('obj.example.com', '/obj', { objectSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] } })]);
    expect((await s.call('POST', CM, configMap('team-b', { labels: { team: 'b' } }))).status).toBe(201);
    expect((await s.call('POST', CM, configMap('team-a', { labels: { team: 'a' } }))).status).toBe(201);
    expect(w.at('/obj').map((r) => r.request.name)).toEqual(['team-a']);
  });

  it('never sends webhook configurations to webhooks', async () => {
    w.on('/deny-all', (review) => ({ response: { uid: review.request.uid, allowed: false } }));
    await configure('Validating', 'deny-all', [hook('deny-all.example.com', '/deny-all', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] })]);
    expect((await s.call('DELETE', `${VWC}/deny-all`)).status).toBe(200);
    expect(w.at('/deny-all')).toHaveLength(0);
  });

  it('reaches a service-referenced webhook through the Service Endpoints, verifying <service>.<namespace>.svc', async () => {
    await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'webhooks' } });
    await s.call('POST', '/api/v1/namespaces/webhooks/services', {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'hooks' }, spec: { ports: [{ name: 'https', port: 443, targetPort: w.port }] },
    });
    const reference = { service: { namespace: 'webhooks', name: 'hooks', path: '/svc', port: 443 }, caBundle: w.caBundle };
    await configure('Validating', 'svc', [{ ...hook('svc.example.com', '/svc'), clientConfig: reference }]);
    const unreachable = await s.call('POST', CM, configMap('no-endpoints'));
    expect(unreachable.status).toBe(500);
    expect(unreachable.body.message).toContain('service "webhooks/hooks" has no ready endpoints');

    await s.call('POST', '/api/v1/namespaces/webhooks/endpoints', {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hooks' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: w.port }] }],
    });
    expect((await s.call('POST', CM, configMap('via-service'))).status).toBe(201);
    expect(w.at('/svc')).toHaveLength(1);
    expect(SERVICE_DNS_NAME).toBe('hooks.webhooks.svc');
  });

  it('falls back to the Service EndpointSlices, skipping endpoints that are not ready', async () => {
    await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sliced' } });
    const reference = { service: { namespace: 'sliced', name: 'hooks', path: '/sliced', port: 443 }, caBundle: w.caBundle };
    await configure('Validating', 'sliced', [{ ...hook('sliced.example.com', '/sliced'), clientConfig: reference }]);
    const created = await s.call('POST', '/apis/discovery.svc.io/v1/namespaces/sliced/endpointslices', {
      apiVersion: 'discovery.svc.io/v1', kind: 'EndpointSlice', metadata: { name: 'hooks-abc', labels: { 'kubernetes.io/service-name': 'hooks' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.2'], conditions: { ready: false } }, { addresses: ['127.0.0.1'], conditions: { ready: true } }],
      ports: [{ name: 'https', port: w.port }],
    });
    expect(created.status).toBe(201);
    // The certificate names hooks.webhooks.svc, not hooks.sliced.svc: verification refuses it.
    const refused = await s.call('POST', CM, configMap('via-slice'));
    expect(refused.status).toBe(500);
    expect(refused.body.message).toContain('failed to call webhook: Post "https://127.0.0.1:');
    expect(w.at('/sliced')).toHaveLength(0);
  });
});

describe('webhook configurations', () => {
  it('stores the Kubernetes defaults and serves the upstream group name', async () => {
    const created = await configure('Validating', 'defaults', [hook('defaults.example.com', '/allow')]);
    expect(created.webhooks[0]).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10, namespaceSelector: {}, objectSelector: {} });
    expect(created.webhooks[0].rules[0].scope).toBe('*');
    const upstream = await s.call('GET', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/defaults');
    expect(upstream.status).toBe(200);
    const mutating = await configure('Mutating', 'm-defaults', [hook('m-defaults.example.com', '/allow')]);
    expect(mutating.webhooks[0].reinvocationPolicy).toBe('Never');
  });

  it.each([
    ['an http URL', { clientConfig: { url: 'http://127.0.0.1:1/x' } }, 'webhooks[0].clientConfig.url'],
    ['a URL with a query', { clientConfig: { url: 'https://127.0.0.1:1/x?a=b' } }, 'webhooks[0].clientConfig.url'],
    ['both url and service', { clientConfig: { url: 'https://127.0.0.1:1/x', service: { namespace: 'a', name: 'b' } } }, 'webhooks[0].clientConfig'],
    ['a timeout of 31 s', { timeoutSeconds: 31 }, 'webhooks[0].timeoutSeconds'],
    ['a timeout of 0 s', { timeoutSeconds: 0 }, 'webhooks[0].timeoutSeconds'],
    ['an unknown sideEffects', { sideEffects: 'Maybe' }, 'webhooks[0].sideEffects'],
    ['no sideEffects', { sideEffects: undefined }, 'webhooks[0].sideEffects'],
    ['an unknown failurePolicy', { failurePolicy: 'Sometimes' }, 'webhooks[0].failurePolicy'],
    ['review versions without v1', { admissionReviewVersions: ['v1beta1'] }, 'webhooks[0].admissionReviewVersions'],
    ['a name of one segment', { name: 'hook' }, 'webhooks[0].name'],
    ['an unknown operation', { rules: [{ ...CONFIGMAP_RULE, operations: ['READ'] }] }, 'webhooks[0].rules[0].operations[0]'],
    ['match conditions', { matchConditions: [{ name: 'c', expression: 'true' }] }, 'webhooks[0].matchConditions'],
    ['a bad selector', { objectSelector: { matchLabels: { 'bad key!': 'x' } } }, 'webhooks[0].objectSelector'],
  ])('refuses a configuration with %s (422) and stores nothing', async (_what, change, field) => {
    const res = await s.call('POST', VWC, {
      apiVersion: 'admissionregistration.svc.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'invalid' },
      webhooks: [{ ...hook('invalid.example.com', '/x'), ...change, clientConfig: { ...((change as { clientConfig?: object }).clientConfig ?? { url: `${w.url}/x` }) } }],
    });
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.details.causes.map((c: { field: string }) => c.field)).toContain(field);
    expect((await s.call('GET', `${VWC}/invalid`)).status).toBe(404);
  });

  it('refuses two webhooks of one name in a configuration', async () => {
    const res = await s.call('POST', MWC, {
      apiVersion: 'admissionregistration.svc.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'dupes' },
      webhooks: [hook('same.example.com', '/a'), hook('same.example.com', '/b')],
    });
    expect(res.status).toBe(422);
  });

  it('lists as a Table with the Webhooks column kubectl shows', async () => {
    await configure('Validating', 'table', [hook('one.example.com', '/allow'), hook('two.example.com', '/allow')]);
    const res = await s.call('GET', VWC, undefined, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
    expect(res.status).toBe(200);
    expect(res.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Webhooks', 'Age']);
    expect(res.body.rows[0].cells.slice(0, 2)).toEqual(['table', 2]);
  });
});

