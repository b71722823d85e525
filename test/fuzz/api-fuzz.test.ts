// The fuzz suite: property-based hostile input against svc-apiserver in-process over HTTPS, with
// a fixed seed and a bounded number of runs (SVC_FUZZ_RUNS, SVC_FUZZ_SEED to change them). Every
// answer must be a 2xx or a 4xx Status; a refused request changes nothing in the store; the
// server answers /healthz after every batch. A failure prints the seed and the shrunk request.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJws, signingKeyFromPem } from '../../src/apiserver/authn/index.js';
import { encodeProtobuf } from '../../src/encoding/index.js';
import {
  authorization,
  body,
  fieldSelector,
  jsonBody,
  jsonPatch,
  jwtClaims,
  jwtHeader,
  labelSelector,
  name,
  PROTOBUF,
  query,
  strategicPatch,
  toJson,
  toValue,
  yamlBody,
  cborBody,
} from './arbitraries.js';
import { FUZZ_RUNS, FUZZ_SEED, NS, PROPERTY_TIMEOUT_MS, startFuzzTarget, type FuzzRequest, type FuzzTarget } from './fuzz-target.js';

const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;

const targetConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target', labels: { a: 'b' } }, data: { a: '1' } };
const targetDeployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'target', finalizers: ['x.io/keep'] },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 't' } },
    template: { metadata: { labels: { app: 't' } }, spec: { containers: [{ name: 'app', image: 'busybox' }, { name: 'side', image: 'busybox' }] } },
  },
};

let target: FuzzTarget;

/** Brings the patch targets back when an accepted request deleted them. */
async function ensureTargets(): Promise<void> {
  for (const [collection, object] of [
    [CONFIGMAPS, targetConfigMap],
    [DEPLOYMENTS, targetDeployment],
  ] as const) {
    const got = await target.send({ method: 'GET', path: `${collection}/target` });
    if (got.status === 200) continue;
    const created = await target.send({ method: 'POST', path: collection, headers: { 'content-type': 'application/json' }, body: JSON.stringify(object) });
    if (created.status !== 201 && created.status !== 409) throw new Error(`cannot restore ${collection}/target: ${created.status} ${JSON.stringify(created.body)}`);
  }
}

const params = { seed: FUZZ_SEED, numRuns: FUZZ_RUNS } as const;
const batchOf = <T>(arb: fc.Arbitrary<T>) => fc.array(arb, { minLength: 1, maxLength: 3 });
const withQuery = (path: string, q: string) => (q === '' ? path : `${path}?${q}`);
const segment = encodeURIComponent;

describe('fuzzing svc-apiserver over HTTPS', () => {
  beforeAll(async () => {
    target = await startFuzzTarget();
    const ns = await target.send({ method: 'POST', path: '/api/v1/namespaces', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }) });
    expect(ns.status).toBe(201);
    await ensureTargets();
  });
  afterAll(async () => {
    if (!target) return;
    // The campaign's numbers, for docs/benchmarks.md when run long.
    console.log(`fuzz: seed ${FUZZ_SEED}, ${FUZZ_RUNS} runs per property: ${target.stats.requests} requests, ${target.stats.serverErrors} 5xx, ${target.stats.stalls} stalls`);
    await target.close();
  });

  it('decodes every body format (JSON, YAML, CBOR, protobuf) into a 2xx or a 4xx Status', async () => {
    const validProtobuf = encodeProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb', namespace: NS, labels: { a: 'b' } }, data: { k: 'v' } });
    const request = fc.tuple(body(validProtobuf), fc.constantFrom('POST', 'PUT'), fc.constantFrom(CONFIGMAPS, DEPLOYMENTS), fc.constantFrom('', 'dryRun=All', 'fieldValidation=Strict', 'fieldValidation=Warn')).map(
      ([b, method, collection, q]): FuzzRequest => ({
        method,
        path: withQuery(method === 'PUT' ? `${collection}/target` : collection, q),
        headers: { 'content-type': b.contentType },
        body: b.body,
      }),
    );
    await fc.assert(
      fc.asyncProperty(batchOf(request), async (reqs) => {
        await ensureTargets();
        await target.batch(reqs);
      }),
      params,
    );
  }, PROPERTY_TIMEOUT_MS);

  it('applies every patch type (JSON, merge, strategic merge, apply) or refuses it with a 4xx Status', async () => {
    const patch = fc.oneof(
      jsonPatch.map((b) => ({ contentType: 'application/json-patch+json', body: b as string | Uint8Array })),
      fc.oneof(jsonBody, strategicPatch).map((b) => ({ contentType: 'application/merge-patch+json', body: b as string | Uint8Array })),
      strategicPatch.map((b) => ({ contentType: 'application/strategic-merge-patch+json', body: b as string | Uint8Array })),
      fc.oneof(yamlBody, strategicPatch).map((b) => ({ contentType: 'application/apply-patch+yaml', body: b as string | Uint8Array })),
      cborBody.map((b) => ({ contentType: 'application/apply-patch+cbor', body: b as string | Uint8Array })),
      fc.tuple(fc.constantFrom('application/json', 'application/yaml', 'text/plain', 'application/apply-patch+json', PROTOBUF), strategicPatch).map(([contentType, b]) => ({ contentType, body: b as string | Uint8Array })),
    );
    const request = fc
      .tuple(patch, fc.constantFrom(CONFIGMAPS, DEPLOYMENTS), fc.constantFrom('', 'fieldManager=fuzz', 'fieldManager=fuzz&force=true', 'dryRun=All&fieldManager=fuzz', 'fieldValidation=Strict&fieldManager=fuzz'), fc.constantFrom('target', 'absent'))
      .map(([p, collection, q, objectName]): FuzzRequest => ({
        method: 'PATCH',
        path: withQuery(`${collection}/${objectName}`, q),
        headers: { 'content-type': p.contentType },
        body: p.body,
      }));
    await fc.assert(
      fc.asyncProperty(batchOf(request), async (reqs) => {
        await ensureTargets();
        await target.batch(reqs);
      }),
      params,
    );
  }, PROPERTY_TIMEOUT_MS);

  it('parses label and field selectors on lists, watches and collection deletes, or refuses them with a 4xx Status', async () => {
    const request = fc
      .tuple(fc.option(labelSelector, { nil: undefined }), fc.option(fieldSelector, { nil: undefined }), fc.constantFrom('list', 'watch', 'deletecollection', 'cluster'), fc.constantFrom(CONFIGMAPS, DEPLOYMENTS, '/api/v1/pods'))
      .map(([labels, fields, verb, collection]): FuzzRequest => {
        const q = [
          ...(labels !== undefined ? [`labelSelector=${encodeURIComponent(labels)}`] : []),
          ...(fields !== undefined ? [`fieldSelector=${encodeURIComponent(fields)}`] : []),
          ...(verb === 'watch' ? ['watch=true', 'timeoutSeconds=1'] : []),
          // Collection deletes are dry runs, so accepted ones leave the targets in place.
          ...(verb === 'deletecollection' ? ['dryRun=All'] : []),
        ].join('&');
        return { method: verb === 'deletecollection' ? 'DELETE' : 'GET', path: withQuery(collection, q) };
      });
    await fc.assert(fc.asyncProperty(batchOf(request), (reqs) => target.batch(reqs)), params);
  }, PROPERTY_TIMEOUT_MS);

  it('takes any name in paths and bodies (create, read, update, patch, delete) or refuses it with a 4xx Status', async () => {
    const request = fc.tuple(name, fc.oneof(fc.constant(NS), name), fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'POST'), name, fc.boolean()).map(
      ([pathName, ns, method, bodyName, sameName]): FuzzRequest => {
        const collection = `/api/v1/namespaces/${segment(ns)}/configmaps`;
        const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: sameName ? pathName : bodyName }, data: { a: 'b' } };
        if (method === 'POST') return { method, path: collection, headers: { 'content-type': 'application/json' }, body: JSON.stringify(object) };
        const path = `${collection}/${segment(pathName)}`;
        if (method === 'PUT') return { method, path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(object) };
        if (method === 'PATCH') return { method, path, headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ data: { b: 'c' } }) };
        return { method, path };
      },
    );
    await fc.assert(
      fc.asyncProperty(batchOf(request), async (reqs) => {
        await ensureTargets();
        await target.batch(reqs);
      }),
      params,
    );
  }, PROPERTY_TIMEOUT_MS);

  it('reads every query parameter of every verb (resourceVersion, limit, continue, timeoutSeconds, dryRun, …) or refuses it with a 4xx Status', async () => {
    const object = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'q-' }, data: { a: 'b' } });
    const request = fc
      .tuple(query, fc.constantFrom('list', 'get', 'watch', 'create', 'update', 'patch', 'apply', 'delete', 'deletecollection', 'namespace'))
      .map(([q, verb]): FuzzRequest => {
        const json = { 'content-type': 'application/json' };
        switch (verb) {
          case 'list':
            return { method: 'GET', path: withQuery(CONFIGMAPS, q) };
          case 'get':
            return { method: 'GET', path: withQuery(`${CONFIGMAPS}/target`, q) };
          case 'watch':
            return { method: 'GET', path: withQuery(CONFIGMAPS, `watch=1&${q}`) };
          case 'create':
            return { method: 'POST', path: withQuery(CONFIGMAPS, q), headers: json, body: object };
          case 'update':
            return { method: 'PUT', path: withQuery(`${CONFIGMAPS}/target`, q), headers: json, body: JSON.stringify(targetConfigMap) };
          case 'patch':
            return { method: 'PATCH', path: withQuery(`${CONFIGMAPS}/target`, q), headers: { 'content-type': 'application/merge-patch+json' }, body: '{"data":{"q":"1"}}' };
          case 'apply':
            return { method: 'PATCH', path: withQuery(`${CONFIGMAPS}/target`, q), headers: { 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(targetConfigMap) };
          case 'delete':
            return { method: 'DELETE', path: withQuery(`${CONFIGMAPS}/target`, q) };
          case 'deletecollection':
            return { method: 'DELETE', path: withQuery(CONFIGMAPS, q) };
          default:
            return { method: 'GET', path: withQuery(`/api/v1/namespaces/${NS}`, q) };
        }
      });
    await fc.assert(
      fc.asyncProperty(batchOf(request), async (reqs) => {
        await ensureTargets();
        await target.batch(reqs);
      }),
      params,
    );
  }, PROPERTY_TIMEOUT_MS);

  it('answers malformed bearer tokens with 401 Status, never more', async () => {
    const request = fc.tuple(authorization, fc.constantFrom(CONFIGMAPS, '/api', '/healthz', '/version', '/apis/authentication.k8s.io/v1/selfsubjectreviews')).map(
      ([auth, path]): FuzzRequest =>
        path.endsWith('selfsubjectreviews')
          ? { method: 'POST', path, noToken: true, headers: { authorization: auth, 'content-type': 'application/json' }, body: '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' }
          : { method: 'GET', path, noToken: true, headers: { authorization: auth } },
    );
    await fc.assert(fc.asyncProperty(batchOf(request), (reqs) => target.batch(reqs)), params);
  }, PROPERTY_TIMEOUT_MS);

  it('checks service-account JWTs, signed with the server key or forged, with any header and claims', async () => {
    const signing = signingKeyFromPem(readFileSync(join(target.dataDir, 'service-account.key'), 'utf8'), 'service-account.key');
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    const jwt = fc.oneof(
      // Signed by the server's own key: only the claims can make it wrong.
      fc.tuple(jwtClaims, fc.boolean()).map(([claims, withKid]) => signJws(toValue(claims) as Record<string, unknown>, signing.key, 'RS256', withKid ? signing.kid : undefined)),
      // Header and claims of anyone's making, with a random or missing signature.
      fc.tuple(jwtHeader, jwtClaims, fc.constantFrom('', 'AAAA', 'c2ln', '.', '..')).map(([header, claims, sig]) => `${b64(toJson(header))}.${b64(toJson(claims))}.${sig}`),
      // A real signature over something else.
      fc.tuple(jwtClaims, jwtClaims).map(([a, b]) => {
        const signed = signJws(toValue(a) as Record<string, unknown>, signing.key, 'RS256', signing.kid).split('.');
        return `${signed[0]}.${b64(toJson(b))}.${signed[2]}`;
      }),
    );
    const request = jwt.map((token): FuzzRequest => ({ method: 'GET', path: CONFIGMAPS, noToken: true, headers: { authorization: `Bearer ${token}` } }));
    await fc.assert(fc.asyncProperty(batchOf(request), (reqs) => target.batch(reqs)), params);
  }, PROPERTY_TIMEOUT_MS);
});
