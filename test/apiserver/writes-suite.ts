import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPullPolicy } from '../../src/api/index.js';
import { startTestServer, type BackendName, type CallResult, type TestServer } from './harness.js';

/** A container as stored: with Kubernetes' container defaults (test/api/defaults.test.ts pins them). */
const storedContainer = (container: Record<string, unknown>) => ({
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  resources: {},
  imagePullPolicy: defaultPullPolicy(container['image']),
  ...container,
});

const CM = '/api/v1/namespaces/default/configmaps';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
const PODS = '/api/v1/namespaces/default/pods';

const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

const cm = (name: string, data: Record<string, string> = { a: '1' }, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...metadata },
  data,
});

const deployment = (name: string, replicas = 1) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name } },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          { name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] },
          { name: 'sidecar', image: 'busybox' },
        ],
      },
    },
  },
});

function expectStatus(res: CallResult, code: number, reason: string) {
  expect(res.status).toBe(code);
  expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
}

const warningsOf = (res: CallResult): string[] => {
  const header = res.headers['warning'];
  if (header === undefined) return [];
  return (Array.isArray(header) ? header : [String(header)]).flatMap((h) => String(h).split(/,(?=\s*299 )/).map((s) => s.trim()));
};

export function writesSuite(backend: BackendName) {
  describe(`writes on the ${backend} store`, () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer(backend, { featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    });
    afterAll(async () => {
      await s.close();
    });

    const patch = (url: string, type: string, body: unknown, query = '') =>
      s.call('PATCH', `${url}${query}`, typeof body === 'string' ? body : JSON.stringify(body), { headers: { 'content-type': type } });

    /** Asserts the request changed nothing in the store. */
    async function unchanged<T>(request: () => Promise<T>): Promise<T> {
      const before = await s.store.revision();
      const result = await request();
      expect(await s.store.revision()).toBe(before);
      return result;
    }

    describe('JSON patch', () => {
      it('applies add, replace, remove, copy, move and a passing test', async () => {
        await s.call('POST', CM, cm('jp', { a: '1', b: '2' }));
        const res = await patch(`${CM}/jp`, JSON_PATCH, [
          { op: 'test', path: '/data/a', value: '1' },
          { op: 'add', path: '/data/c', value: '3' },
          { op: 'replace', path: '/data/a', value: 'one' },
          { op: 'remove', path: '/data/b' },
          { op: 'copy', from: '/data/c', path: '/data/d' },
          { op: 'move', from: '/data/d', path: '/data/e' },
          { op: 'add', path: '/metadata/labels', value: { x: 'y' } },
        ]);
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual({ a: 'one', c: '3', e: '3' });
        expect(res.body.metadata.labels).toEqual({ x: 'y' });
        const got = await s.call('GET', `${CM}/jp`);
        expect(got.body.data).toEqual({ a: 'one', c: '3', e: '3' });
        expect(got.body.metadata.resourceVersion).toBe(res.body.metadata.resourceVersion);
      });

      it('fails the whole patch when a test does not hold, changing nothing', async () => {
        await s.call('POST', CM, cm('jp-test'));
        await unchanged(async () => {
          const res = await patch(`${CM}/jp-test`, JSON_PATCH, [
            { op: 'replace', path: '/data/a', value: '2' },
            { op: 'test', path: '/data/a', value: 'nope' },
          ]);
          expectStatus(res, 422, 'Invalid');
        });
        expect((await s.call('GET', `${CM}/jp-test`)).body.data).toEqual({ a: '1' });
      });

      it('answers 422 to a path that does not exist and 400 to a malformed patch', async () => {
        await s.call('POST', CM, cm('jp-bad'));
        await unchanged(async () => {
          expectStatus(await patch(`${CM}/jp-bad`, JSON_PATCH, [{ op: 'remove', path: '/data/missing' }]), 422, 'Invalid');
          expectStatus(await patch(`${CM}/jp-bad`, JSON_PATCH, [{ op: 'replace', path: '/spec/x/y', value: 1 }]), 422, 'Invalid');
          expectStatus(await patch(`${CM}/jp-bad`, JSON_PATCH, { op: 'add' }), 400, 'BadRequest');
          expectStatus(await patch(`${CM}/jp-bad`, JSON_PATCH, [{ op: 'frobnicate', path: '/data' }]), 400, 'BadRequest');
          expectStatus(await patch(`${CM}/jp-bad`, JSON_PATCH, [{ op: 'add', path: '/data/x' }]), 400, 'BadRequest');
          expectStatus(await patch(`${CM}/jp-bad`, JSON_PATCH, '[{"op": '), 400, 'BadRequest');
        });
      });

      it('answers 404 to a patch of an object that does not exist', async () => {
        await unchanged(async () => expectStatus(await patch(`${CM}/nope`, JSON_PATCH, []), 404, 'NotFound'));
      });

      it('answers 400 to a patch that changes the kind, apiVersion, namespace or name', async () => {
        await s.call('POST', CM, cm('jp-ident'));
        await unchanged(async () => {
          expectStatus(await patch(`${CM}/jp-ident`, JSON_PATCH, [{ op: 'replace', path: '/kind', value: 'Secret' }]), 400, 'BadRequest');
          expectStatus(await patch(`${CM}/jp-ident`, JSON_PATCH, [{ op: 'replace', path: '/apiVersion', value: 'v2' }]), 400, 'BadRequest');
          expectStatus(await patch(`${CM}/jp-ident`, MERGE, { metadata: { namespace: 'kube-system' } }), 400, 'BadRequest');
          expectStatus(await patch(`${CM}/jp-ident`, MERGE, { metadata: { name: 'other' } }), 400, 'BadRequest');
        });
      });

      it('answers 422 when the result is invalid', async () => {
        await s.call('POST', DEPLOY, deployment('jp-invalid'));
        await unchanged(async () => {
          const res = await patch(`${DEPLOY}/jp-invalid`, JSON_PATCH, [{ op: 'replace', path: '/spec/replicas', value: 'many' }]);
          expectStatus(res, 422, 'Invalid');
          expect(res.body.details.causes[0]).toMatchObject({ field: 'spec.replicas' });
        });
      });
    });

    describe('merge patch', () => {
      it('merges maps, removes keys set to null and replaces lists', async () => {
        await s.call('POST', DEPLOY, deployment('mp'));
        const res = await patch(`${DEPLOY}/mp`, MERGE, {
          metadata: { labels: { app: null, tier: 'web' } },
          spec: { replicas: 3, template: { spec: { containers: [{ name: 'only', image: 'redis' }] } } },
        });
        expect(res.status).toBe(200);
        expect(res.body.metadata.labels).toEqual({ tier: 'web' });
        expect(res.body.spec.replicas).toBe(3);
        expect(res.body.spec.template.spec.containers).toEqual([storedContainer({ name: 'only', image: 'redis' })]);
        expect(res.body.metadata.generation).toBe(2);
      });

      it('answers 400 to a patch that is not an object', async () => {
        await s.call('POST', CM, cm('mp-bad'));
        await unchanged(async () => {
          expectStatus(await patch(`${CM}/mp-bad`, MERGE, '[1]'), 400, 'BadRequest');
          expectStatus(await patch(`${CM}/mp-bad`, MERGE, '{"data":'), 400, 'BadRequest');
        });
      });
    });

    describe('conditional patches', () => {
      it('applies a patch whose resourceVersion is current and refuses a stale one with 409', async () => {
        const created = await s.call('POST', CM, cm('cond'));
        const rv = created.body.metadata.resourceVersion;
        const first = await patch(`${CM}/cond`, MERGE, { metadata: { resourceVersion: rv }, data: { a: '2' } });
        expect(first.status).toBe(200);
        await unchanged(async () => {
          expectStatus(await patch(`${CM}/cond`, MERGE, { metadata: { resourceVersion: rv }, data: { a: '3' } }), 409, 'Conflict');
          expectStatus(await patch(`${CM}/cond`, JSON_PATCH, [{ op: 'test', path: '/metadata/resourceVersion', value: rv }]), 409, 'Conflict');
          expectStatus(await patch(`${CM}/cond`, STRATEGIC, { metadata: { resourceVersion: rv } }), 409, 'Conflict');
        });
        const current = first.body.metadata.resourceVersion;
        const ok = await patch(`${CM}/cond`, JSON_PATCH, [
          { op: 'test', path: '/metadata/resourceVersion', value: current },
          { op: 'replace', path: '/data/a', value: '4' },
        ]);
        expect(ok.status).toBe(200);
      });

      it('applies every one of many concurrent unconditional patches', async () => {
        await s.call('POST', CM, cm('race', {}));
        const results = await Promise.all(
          Array.from({ length: 5 }, (_, i) => patch(`${CM}/race`, MERGE, { data: { [`k${i}`]: String(i) } })),
        );
        expect(results.map((r) => r.status)).toEqual(Array(5).fill(200));
        expect(Object.keys((await s.call('GET', `${CM}/race`)).body.data).sort()).toEqual(["k0", "k1", "k2", "k3", "k4"]);
      });
    });

    describe('field validation', () => {
      const withUnknown = (name: string) => ({ ...cm(name), extra: 1, metadata: { name, bogus: 'x' } });
      const dupJson = (name: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"a":"1"},"data":{"a":"2"}}`;

      it('warns by default about each unknown field, drops it and keeps the rest', async () => {
        const res = await s.call('POST', CM, withUnknown('fv-warn'));
        expect(res.status).toBe(201);
        expect(warningsOf(res)).toEqual(['299 - "unknown field \\"metadata.bogus\\""', '299 - "unknown field \\"extra\\""']);
        const got = await s.call('GET', `${CM}/fv-warn`);
        expect(got.body.extra).toBeUndefined();
        expect(got.body.metadata.bogus).toBeUndefined();
        expect(got.body.data).toEqual({ a: '1' });
      });

      it('warns about a duplicate field and keeps its last value', async () => {
        const res = await s.call('POST', `${CM}?fieldValidation=Warn`, dupJson('fv-dup'));
        expect(res.status).toBe(201);
        expect(warningsOf(res)).toEqual(['299 - "duplicate field \\"data\\""']);
        expect(res.body.data).toEqual({ a: '2' });
      });

      it('drops unknown and duplicate fields silently with Ignore', async () => {
        const res = await s.call('POST', `${CM}?fieldValidation=Ignore`, withUnknown('fv-ignore'));
        expect(res.status).toBe(201);
        expect(warningsOf(res)).toEqual([]);
        expect(res.body.extra).toBeUndefined();
        const dup = await s.call('POST', `${CM}?fieldValidation=Ignore`, dupJson('fv-ignore-dup'));
        expect(dup.status).toBe(201);
        expect(warningsOf(dup)).toEqual([]);
      });

      it('rejects unknown and duplicate fields with 400 naming them under Strict', async () => {
        await unchanged(async () => {
          const res = await s.call('POST', `${CM}?fieldValidation=Strict`, withUnknown('fv-strict'));
          expectStatus(res, 400, 'BadRequest');
          expect(res.body.message).toBe(
            'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.bogus", unknown field "extra"',
          );
          const dup = await s.call('POST', `${CM}?fieldValidation=Strict`, dupJson('fv-strict-dup'));
          expectStatus(dup, 400, 'BadRequest');
          expect(dup.body.message).toContain('duplicate field "data"');
        });
      });

      it('accepts a body without problems at every level, without warnings', async () => {
        for (const level of ['Ignore', 'Warn', 'Strict']) {
          const res = await s.call('POST', `${CM}?fieldValidation=${level}`, cm(`fv-clean-${level.toLowerCase()}`));
          expect(res.status).toBe(201);
          expect(warningsOf(res)).toEqual([]);
        }
      });

      for (const level of ['Ignore', 'Warn', 'Strict']) {
        it(`answers 400 with only the first fatal error to an unknown field plus a type error (${level})`, async () => {
          await unchanged(async () => {
            const body = { ...deployment(`fv-fatal-${level.toLowerCase()}`), bogus: true };
            (body.spec as Record<string, unknown>)['replicas'] = 'three';
            (body.spec as Record<string, unknown>)['paused'] = 'yes';
            const res = await s.call('POST', `${DEPLOY}?fieldValidation=${level}`, body);
            expectStatus(res, 400, 'BadRequest');
            expect(res.body.message).toContain('spec.replicas');
            expect(res.body.message).not.toContain('spec.paused');
            expect(res.body.message).not.toContain('bogus');
          });
        });
      }

      it('still answers 422 to a type error or a missing required field without unknown fields', async () => {
        await unchanged(async () => {
          const bad = deployment('fv-422');
          (bad.spec as Record<string, unknown>)['replicas'] = 'three';
          expectStatus(await s.call('POST', `${DEPLOY}?fieldValidation=Ignore`, bad), 422, 'Invalid');
          const missing = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'fv-req' }, spec: { containers: [{ name: 'c' }] } };
          const res = await s.call('POST', `${PODS}?fieldValidation=Strict`, missing);
          expectStatus(res, 422, 'Invalid');
          expect(res.body.details.causes).toEqual([expect.objectContaining({ reason: 'FieldValueRequired', field: 'spec.containers[0].image' })]);
        });
      });

      it('answers 422 to a generateName that is not a string (found by the fuzz suite: was a 500)', async () => {
        await unchanged(async () => {
          for (const generateName of [5e-324, true, ['a-'], { a: 'b' }]) {
            const res = await s.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName } });
            expectStatus(res, 422, 'Invalid');
            expect(JSON.stringify(res.body.details.causes)).toContain('metadata.generateName');
          }
        });
      });

      it('answers 400 to a name, kind or apiVersion that is an object with its own toString or valueOf (found by the fuzz suite: was a 500)', async () => {
        expect((await s.call('POST', CM, cm('own-to-string'))).status).toBe(201);
        await unchanged(async () => {
          const odd = { toString: 0, valueOf: 0 };
          for (const [method, type, body] of [
            ['PATCH', 'application/merge-patch+json', { metadata: { name: odd } }],
            ['PATCH', 'application/strategic-merge-patch+json', { kind: odd }],
            ['PATCH', 'application/merge-patch+json', { apiVersion: odd }],
            ['PUT', 'application/json', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: odd } }],
          ] as const) {
            const res = await s.call(method, `${CM}/own-to-string`, body, { headers: { 'content-type': type } });
            expectStatus(res, 400, 'BadRequest');
            expect(res.body.message).toContain('{"toString":0,"valueOf":0}');
          }
        });
      });

      it('names unknown fields inside lists by index, and leaves unmodelled parts alone', async () => {
        const d = deployment('fv-nested');
        const container = d.spec.template.spec.containers[0] as Record<string, unknown>;
        container['colour'] = 'blue';
        container['securityContext'] = { anything: { goes: true } };
        const res = await s.call('POST', DEPLOY, d);
        expect(res.status).toBe(201);
        expect(warningsOf(res)).toEqual(['299 - "unknown field \\"spec.template.spec.containers[0].colour\\""']);
        expect(res.body.spec.template.spec.containers[0].securityContext).toEqual({ anything: { goes: true } });
      });

      it('validates fields on PUT and PATCH too', async () => {
        const created = await s.call('POST', CM, cm('fv-put'));
        const put = await s.call('PUT', `${CM}/fv-put`, { ...created.body, extra: 1 });
        expect(put.status).toBe(200);
        expect(warningsOf(put)).toEqual(['299 - "unknown field \\"extra\\""']);
        await unchanged(async () => {
          expectStatus(await patch(`${CM}/fv-put`, MERGE, { extra: 1 }, '?fieldValidation=Strict'), 400, 'BadRequest');
          expectStatus(await patch(`${CM}/fv-put`, MERGE, '{"data":{"a":"1"},"data":{"a":"2"}}', '?fieldValidation=Strict'), 400, 'BadRequest');
        });
        const warned = await patch(`${CM}/fv-put`, JSON_PATCH, [{ op: 'add', path: '/extra', value: 1 }]);
        expect(warned.status).toBe(200);
        expect(warningsOf(warned)).toEqual(['299 - "unknown field \\"extra\\""']);
        expect(warned.body.extra).toBeUndefined();
      });

      it('answers 400 to an unknown fieldValidation value, changing nothing', async () => {
        await unchanged(async () => expectStatus(await s.call('POST', `${CM}?fieldValidation=Loose`, cm('fv-bad')), 400, 'BadRequest'));
      });
    });

    describe('YAML bodies', () => {
      const yaml = (name: string, extra = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n${extra}`;
      const post = (url: string, body: string) => s.call('POST', url, body, { headers: { 'content-type': 'application/yaml' } });

      it('creates from a YAML body', async () => {
        const res = await post(CM, yaml('y-create'));
        expect(res.status).toBe(201);
        expect(res.body.data).toEqual({ a: '1' });
      });

      it('sees duplicate keys in YAML: a warning by default, 400 under Strict', async () => {
        const warned = await post(CM, yaml('y-dup', 'data:\n  b: "2"\n'));
        expect(warned.status).toBe(201);
        expect(warningsOf(warned)).toEqual(['299 - "duplicate field \\"data\\""']);
        await unchanged(async () => expectStatus(await post(`${CM}?fieldValidation=Strict`, yaml('y-dup2', 'data:\n  b: "2"\n')), 400, 'BadRequest'));
      });

      it('answers 400 to malformed YAML and to several documents', async () => {
        await unchanged(async () => {
          expectStatus(await post(CM, 'metadata: [unclosed'), 400, 'BadRequest');
          expectStatus(await post(CM, `${yaml('y-1')}---\n${yaml('y-2')}`), 400, 'BadRequest');
        });
      });
    });

    describe('dry run', () => {
      for (const query of ['?dryRun=All', '?dryRun=All&dryRun=All']) {
        it(`answers POST, PUT, PATCH, DELETE and deletecollection with ${query} as a real request would, storing nothing`, async () => {
          const created = await s.call('POST', CM, cm('dry', { a: '1' }, { labels: { dry: 'yes' }, finalizers: [] }));
          const rv = created.body.metadata.resourceVersion;
          await unchanged(async () => {
            const post = await s.call('POST', `${CM}${query}`, cm('dry-new'));
            expect(post.status).toBe(201);
            expect(post.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
            const generated = await s.call('POST', `${CM}${query}`, { ...cm(''), metadata: { generateName: 'dry-' } });
            expect(generated.status).toBe(201);
            expect(generated.body.metadata.name).toMatch(/^dry-.{5}$/);
            expectStatus(await s.call('GET', `${CM}/${generated.body.metadata.name}`), 404, 'NotFound');

            const put = await s.call('PUT', `${CM}/dry${query}`, { ...created.body, data: { a: 'put' } });
            expect(put.status).toBe(200);
            expect(put.body.data).toEqual({ a: 'put' });
            const putNew = await s.call('PUT', `${CM}/dry-put-new${query}`, cm('dry-put-new'));
            expect(putNew.status).toBe(201);

            for (const [type, body] of [
              [JSON_PATCH, [{ op: 'replace', path: '/data/a', value: 'p' }]],
              [MERGE, { data: { a: 'p' } }],
              [STRATEGIC, { data: { a: 'p' } }],
            ] as const) {
              const res = await patch(`${CM}/dry`, type, body, query);
              expect(res.status).toBe(200);
              expect(res.body.data).toEqual({ a: 'p' });
            }
            const applied = await patch(`${CM}/dry`, APPLY, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\ndata:\n  a: applied\n', `${query}&fieldManager=m&force=true`);
            expect(applied.status).toBe(200);
            const appliedNew = await patch(`${CM}/dry-apply-new`, APPLY, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry-apply-new\n', `${query}&fieldManager=m`);
            expect(appliedNew.status).toBe(201);

            const del = await s.call('DELETE', `${CM}/dry${query}`);
            expect(del.status).toBe(200);
            expect(del.body).toMatchObject({ kind: 'Status', status: 'Success' });
            const collection = await s.call('DELETE', `${CM}${query}&labelSelector=dry%3Dyes`);
            expect(collection.status).toBe(200);
            expect(collection.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['dry']);
          });
          const got = await s.call('GET', `${CM}/dry`);
          expect(got.body.metadata.resourceVersion).toBe(rv);
          expect(got.body.data).toEqual({ a: '1' });
          await s.call('DELETE', `${CM}/dry`);
        });
      }

      it('marks nothing when a dry-run delete would only mark the object', async () => {
        await s.call('POST', CM, cm('dry-fin', { a: '1' }, { finalizers: ['example.com/hold'] }));
        const res = await unchanged(() => s.call('DELETE', `${CM}/dry-fin?dryRun=All`));
        expect(res.status).toBe(200);
        expect(res.body.metadata.deletionTimestamp).toBeDefined();
        expect((await s.call('GET', `${CM}/dry-fin`)).body.metadata.deletionTimestamp).toBeUndefined();
      });

      it('answers 400 to any other dryRun value on every verb', async () => {
        await s.call('POST', CM, cm('dry-bad'));
        await unchanged(async () => {
          expectStatus(await s.call('POST', `${CM}?dryRun=Yes`, cm('dry-bad2')), 400, 'BadRequest');
          expectStatus(await s.call('PUT', `${CM}/dry-bad?dryRun=true`, cm('dry-bad')), 400, 'BadRequest');
          expectStatus(await patch(`${CM}/dry-bad`, MERGE, {}, '?dryRun=None'), 400, 'BadRequest');
          expectStatus(await s.call('DELETE', `${CM}/dry-bad?dryRun=1`), 400, 'BadRequest');
          expectStatus(await s.call('DELETE', `${CM}?dryRun=x`), 400, 'BadRequest');
          expectStatus(await s.call('POST', `${CM}?dryRun=`, cm('dry-bad3')), 400, 'BadRequest');
          expectStatus(await s.call('DELETE', `${CM}?dryRun`), 400, 'BadRequest');
        });
      });
    });

    describe('strategic merge patch', () => {
      it('merges containers by name, ports by containerPort and env by name', async () => {
        await s.call('POST', DEPLOY, deployment('smp'));
        const res = await patch(`${DEPLOY}/smp`, STRATEGIC, {
          spec: {
            template: {
              spec: {
                containers: [
                  { name: 'web', image: 'nginx:1.26', ports: [{ containerPort: 443 }], env: [{ name: 'B', value: '2' }] },
                  { name: 'new', image: 'redis' },
                ],
              },
            },
          },
        });
        expect(res.status).toBe(200);
        const containers = res.body.spec.template.spec.containers;
        expect(containers.map((c: { name: string }) => c.name)).toEqual(['web', 'sidecar', 'new']);
        expect(containers[0]).toEqual(
          storedContainer({
            name: 'web',
            image: 'nginx:1.26',
            ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443, protocol: 'TCP' }],
            env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
          }),
        );
      });

      it('deletes an item with $patch: delete and replaces a list with $patch: replace', async () => {
        await s.call('POST', DEPLOY, deployment('smp-dir'));
        const deleted = await patch(`${DEPLOY}/smp-dir`, STRATEGIC, {
          spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } },
        });
        expect(deleted.status).toBe(200);
        expect(deleted.body.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['web']);
        const replaced = await patch(`${DEPLOY}/smp-dir`, STRATEGIC, {
          spec: { template: { spec: { containers: [{ $patch: 'replace' }, { name: 'solo', image: 'busybox' }] } } },
        });
        expect(replaced.body.spec.template.spec.containers).toEqual([storedContainer({ name: 'solo', image: 'busybox' })]);
      });

      it('merges finalizers as a set and removes them with $deleteFromPrimitiveList', async () => {
        await s.call('POST', CM, cm('smp-fin', { a: '1' }, { finalizers: ['a.example/x'] }));
        const added = await patch(`${CM}/smp-fin`, STRATEGIC, { metadata: { finalizers: ['a.example/x', 'b.example/y'] } });
        expect(added.body.metadata.finalizers).toEqual(['a.example/x', 'b.example/y']);
        const removed = await patch(`${CM}/smp-fin`, STRATEGIC, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.example/x', 'b.example/y'] } });
        expect(removed.body.metadata.finalizers).toEqual([]);
      });

      it('merges pod volumes and volume mounts by their keys', async () => {
        await s.call('POST', PODS, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'smp-pod' },
          spec: {
            // No API credentials volume from the ServiceAccount plugin: the lists are exactly the test's.
            automountServiceAccountToken: false,
            containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'a', mountPath: '/a' }] }],
            volumes: [{ name: 'a', emptyDir: {} }],
          },
        });
        const res = await patch(`${PODS}/smp-pod`, STRATEGIC, {
          spec: {
            containers: [{ name: 'c', volumeMounts: [{ name: 'b', mountPath: '/b' }] }],
            volumes: [{ name: 'b', emptyDir: {} }],
          },
        });
        expect(res.status).toBe(200);
        expect(res.body.spec.volumes.map((v: { name: string }) => v.name)).toEqual(['a', 'b']);
        expect(res.body.spec.containers[0].volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toEqual(['/a', '/b']);
      });

      it('merges service ports by port', async () => {
        await s.call('POST', '/api/v1/namespaces/default/services', {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'smp-svc' },
          spec: { ports: [{ port: 80, targetPort: 8080 }] },
        });
        const res = await patch('/api/v1/namespaces/default/services/smp-svc', STRATEGIC, {
          spec: { ports: [{ port: 80, targetPort: 9090 }, { port: 443 }] },
        });
        expect(res.body.spec.ports).toEqual([{ port: 80, targetPort: 9090, protocol: 'TCP' }, { port: 443, targetPort: 443, protocol: 'TCP' }]);
      });

      it('answers 400 to an item without its merge key and to an unknown directive, changing nothing', async () => {
        await s.call('POST', DEPLOY, deployment('smp-bad'));
        await unchanged(async () => {
          expectStatus(await patch(`${DEPLOY}/smp-bad`, STRATEGIC, { spec: { template: { spec: { containers: [{ image: 'x' }] } } } }), 400, 'BadRequest');
          expectStatus(await patch(`${DEPLOY}/smp-bad`, STRATEGIC, { spec: { $patch: 'explode' } }), 400, 'BadRequest');
          expectStatus(await patch(`${DEPLOY}/smp-bad`, STRATEGIC, '[]'), 400, 'BadRequest');
        });
      });
    });

    describe('deletion', () => {
      const get = (name: string) => s.call('GET', `${CM}/${name}`);
      const setFinalizers = (name: string, finalizers: string[]) => patch(`${CM}/${name}`, MERGE, { metadata: { finalizers } });

      it('removes an object without finalizers at once, and its name may be reused', async () => {
        await s.call('POST', CM, cm('del-live'));
        const res = await s.call('DELETE', `${CM}/del-live`);
        expect(res.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'del-live', kind: 'configmaps' } });
        expectStatus(await get('del-live'), 404, 'NotFound');
        expect((await s.call('POST', CM, cm('del-live'))).status).toBe(201);
      });

      it('walks the state table: Live → Terminating → (finalizer removed) Terminating → removed, name reusable', async () => {
        await s.call('POST', CM, cm('del-fin', { a: '1' }, { finalizers: ['a.example/one', 'b.example/two'] }));
        const marked = await s.call('DELETE', `${CM}/del-fin`);
        expect(marked.status).toBe(200);
        expect(marked.body.kind).toBe('ConfigMap');
        expect(Date.parse(marked.body.metadata.deletionTimestamp)).not.toBeNaN();
        expect(marked.body.metadata.deletionGracePeriodSeconds).toBe(0);

        const again = await unchanged(() => s.call('DELETE', `${CM}/del-fin`));
        expect(again.status).toBe(200);
        expect(again.body.metadata.resourceVersion).toBe(marked.body.metadata.resourceVersion);
        expect(again.body.metadata.deletionTimestamp).toBe(marked.body.metadata.deletionTimestamp);

        const one = await setFinalizers('del-fin', ['b.example/two']);
        expect(one.status).toBe(200);
        expect((await get('del-fin')).body.metadata).toMatchObject({ finalizers: ['b.example/two'], deletionTimestamp: marked.body.metadata.deletionTimestamp });

        await unchanged(async () => expectStatus(await setFinalizers('del-fin', ['b.example/two', 'c.example/new']), 422, 'Invalid'));

        const last = await setFinalizers('del-fin', []);
        expect(last.status).toBe(200);
        expectStatus(await get('del-fin'), 404, 'NotFound');
        expect((await s.call('POST', CM, cm('del-fin'))).status).toBe(201);
      });

      it('removes a Terminating object when a PUT drops its last finalizer', async () => {
        await s.call('POST', CM, cm('del-put', { a: '1' }, { finalizers: ['a.example/one'] }));
        const marked = await s.call('DELETE', `${CM}/del-put`);
        const res = await s.call('PUT', `${CM}/del-put`, { ...marked.body, metadata: { ...marked.body.metadata, finalizers: [] } });
        expect(res.status).toBe(200);
        expectStatus(await get('del-put'), 404, 'NotFound');
      });

      it('adds the foregroundDeletion finalizer with Foreground and orphan with Orphan or orphanDependents=true', async () => {
        for (const [name, query, body, finalizer] of [
          ['del-fg', '?propagationPolicy=Foreground', undefined, 'foregroundDeletion'],
          ['del-orphan', '', { propagationPolicy: 'Orphan' }, 'orphan'],
          ['del-orphan-legacy', '?orphanDependents=true', undefined, 'orphan'],
        ] as const) {
          await s.call('POST', CM, cm(name));
          const res = await s.call('DELETE', `${CM}/${name}${query}`, body);
          expect(res.status).toBe(200);
          expect(res.body.metadata.finalizers).toEqual([finalizer]);
          expect(res.body.metadata.deletionTimestamp).toBeDefined();
        }
      });

      it('removes at once with Background, and with orphanDependents=false', async () => {
        await s.call('POST', CM, cm('del-bg'));
        expect((await s.call('DELETE', `${CM}/del-bg`, { propagationPolicy: 'Background' })).body.status).toBe('Success');
        await s.call('POST', CM, cm('del-nonorphan'));
        expect((await s.call('DELETE', `${CM}/del-nonorphan?orphanDependents=false`)).body.status).toBe('Success');
      });

      it('answers 202 to orphanDependents=false when the object stays', async () => {
        await s.call('POST', CM, cm('del-202', { a: '1' }, { finalizers: ['a.example/hold'] }));
        const res = await s.call('DELETE', `${CM}/del-202`, { orphanDependents: false });
        expect(res.status).toBe(202);
        expect(res.body.metadata.deletionTimestamp).toBeDefined();
      });

      it('honours preconditions on uid and resourceVersion from the body', async () => {
        const created = await s.call('POST', CM, cm('del-pre'));
        await unchanged(async () => {
          expectStatus(await s.call('DELETE', `${CM}/del-pre`, { preconditions: { uid: 'other' } }), 409, 'Conflict');
          expectStatus(await s.call('DELETE', `${CM}/del-pre`, { preconditions: { resourceVersion: '1' } }), 409, 'Conflict');
        });
        const ok = await s.call('DELETE', `${CM}/del-pre`, {
          preconditions: { uid: created.body.metadata.uid, resourceVersion: created.body.metadata.resourceVersion },
        });
        expect(ok.body.status).toBe('Success');
      });

      it('lets a scheduled pod wait for its node agent unless the grace period is 0', async () => {
        const pod = (name: string) => ({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name },
          spec: { nodeName: 'node-1', terminationGracePeriodSeconds: 20, containers: [{ name: 'c', image: 'busybox' }] },
        });
        await s.call('POST', PODS, pod('grace'));
        const marked = await s.call('DELETE', `${PODS}/grace`);
        expect(marked.status).toBe(200);
        expect(marked.body.metadata.deletionGracePeriodSeconds).toBe(20);
        const shorter = await s.call('DELETE', `${PODS}/grace`, { gracePeriodSeconds: 5 });
        expect(shorter.body.metadata.deletionGracePeriodSeconds).toBe(5);
        const gone = await s.call('DELETE', `${PODS}/grace?gracePeriodSeconds=0`);
        expect(gone.body.status).toBe('Success');
        expectStatus(await s.call('GET', `${PODS}/grace`), 404, 'NotFound');

        await s.call('POST', PODS, pod('grace-zero'));
        expect((await s.call('DELETE', `${PODS}/grace-zero`, { gracePeriodSeconds: 0 })).body.status).toBe('Success');
        await s.call('POST', PODS, { ...pod('unscheduled'), spec: { containers: [{ name: 'c', image: 'busybox' }] } });
        expect((await s.call('DELETE', `${PODS}/unscheduled`)).body.status).toBe('Success');
      });

      it('answers 400 to malformed delete options, changing nothing', async () => {
        await s.call('POST', CM, cm('del-bad'));
        await unchanged(async () => {
          expectStatus(await s.call('DELETE', `${CM}/del-bad`, { propagationPolicy: 'Sideways' }), 400, 'BadRequest');
          expectStatus(await s.call('DELETE', `${CM}/del-bad?gracePeriodSeconds=soon`), 400, 'BadRequest');
          expectStatus(await s.call('DELETE', `${CM}/del-bad`, { preconditions: 'uid' }), 400, 'BadRequest');
          expectStatus(await s.call('DELETE', `${CM}/del-bad`, { orphanDependents: true, propagationPolicy: 'Orphan' }), 400, 'BadRequest');
          expectStatus(await s.call('DELETE', `${CM}/del-bad`, { orphanDependents: 'maybe' }), 400, 'BadRequest');
          expectStatus(await s.call('DELETE', `${CM}/del-bad`, { dryRun: ['Some'] }), 400, 'BadRequest');
          expectStatus(await s.call('DELETE', `${CM}/del-bad`, '{"gracePeriodSeconds":'), 400, 'BadRequest');
        });
      });

      it('deletes a collection by selector, each object by the same rules', async () => {
        await s.call('POST', CM, cm('col-a', {}, { labels: { col: 'x' } }));
        await s.call('POST', CM, cm('col-b', {}, { labels: { col: 'x' }, finalizers: ['a.example/hold'] }));
        await s.call('POST', CM, cm('col-c', {}, { labels: { col: 'y' } }));
        const res = await s.call('DELETE', `${CM}?labelSelector=col%3Dx&propagationPolicy=Background`);
        expect(res.status).toBe(200);
        expect(res.body.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort()).toEqual(['col-a', 'col-b']);
        expectStatus(await get('col-a'), 404, 'NotFound');
        expect((await get('col-b')).body.metadata.deletionTimestamp).toBeDefined();
        expect((await get('col-c')).status).toBe(200);
      });

      describe('unsafe deletion of corrupt objects', () => {
        const UNSAFE = 'ignoreStoreReadErrorWithClusterBreakingPotential';
        const corruptKey = (name: string) => `${s.store.prefix}core/configmaps/default/${name}`;

        it('names a corrupt object when a write reads it, and removes it with the option despite finalizers', async () => {
          await s.store.create(corruptKey('corrupt'), new TextEncoder().encode('{"metadata":{"finalizers":["x/y"]'));
          const patched = await patch(`${CM}/corrupt`, MERGE, { data: {} });
          expectStatus(patched, 500, 'StorageReadError');
          expect(patched.body.message).toContain('configmaps "corrupt"');
          expectStatus(await s.call('DELETE', `${CM}/corrupt`), 500, 'StorageReadError');
          const res = await s.call('DELETE', `${CM}/corrupt?${UNSAFE}=true`);
          expect(res.status).toBe(200);
          expect(res.body).toMatchObject({ status: 'Success', details: { name: 'corrupt' } });
          expect(await s.store.get(corruptKey('corrupt'))).toBeUndefined();
        });

        it('refuses the option on a readable object and with any other option, deleting nothing', async () => {
          await s.call('POST', CM, cm('readable'));
          await unchanged(async () => {
            expectStatus(await s.call('DELETE', `${CM}/readable`, { [UNSAFE]: true }), 400, 'BadRequest');
            expectStatus(await s.call('DELETE', `${CM}/readable?${UNSAFE}=true&gracePeriodSeconds=0`), 400, 'BadRequest');
            expectStatus(await s.call('DELETE', `${CM}/readable`, { [UNSAFE]: true, preconditions: { uid: 'x' } }), 400, 'BadRequest');
            expectStatus(await s.call('DELETE', `${CM}/readable`, { [UNSAFE]: true, propagationPolicy: 'Orphan' }), 400, 'BadRequest');
            expectStatus(await s.call('DELETE', `${CM}/readable?${UNSAFE}=true&dryRun=All`), 400, 'BadRequest');
            expectStatus(await s.call('DELETE', `${CM}?${UNSAFE}=true`), 400, 'BadRequest');
          });
          expect((await get('readable')).status).toBe(200);
        });
      });
    });

    describe('server-side apply', () => {
      const applyDeploy = (name: string, manager: string, body: string, extra = '') =>
        patch(`${DEPLOY}/${name}`, APPLY, body, `?fieldManager=${manager}${extra}`);
      const manifest = (name: string, fields: string) =>
        `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  selector:\n    matchLabels:\n      app: ${name}\n  template:\n    metadata:\n      labels:\n        app: ${name}\n    spec:\n      containers:\n      - name: web\n        image: nginx\n${fields}`;
      const entry = (body: { metadata: { managedFields?: { manager: string; operation: string }[] } }, manager: string) =>
        body.metadata.managedFields?.find((e) => e.manager === manager) as { operation: string; fieldsV1: Record<string, any>; fieldsType: string; apiVersion: string } | undefined;

      it('creates the object when absent (201) and records the manager in managedFields', async () => {
        const res = await applyDeploy('ssa', 'alice', manifest('ssa', '  replicas: 2\n'));
        expect(res.status).toBe(201);
        expect(res.body.spec.replicas).toBe(2);
        const alice = entry(res.body, 'alice')!;
        expect(alice).toMatchObject({ operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' });
        expect(alice.fieldsV1['f:spec']['f:replicas']).toEqual({});
        expect(alice.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}']).toEqual({ '.': {}, 'f:image': {}, 'f:name': {} });
      });

      it('shares a field two managers apply with the same value, and refuses a different value with 409', async () => {
        await applyDeploy('ssa2', 'alice', manifest('ssa2', '  replicas: 2\n'));
        const shared = await applyDeploy('ssa2', 'bob', manifest('ssa2', '  replicas: 2\n'));
        expect(shared.status).toBe(200);
        expect(entry(shared.body, 'alice')!.fieldsV1['f:spec']['f:replicas']).toEqual({});
        expect(entry(shared.body, 'bob')!.fieldsV1['f:spec']['f:replicas']).toEqual({});

        const res = await unchanged(() => applyDeploy('ssa2', 'bob', manifest('ssa2', '  replicas: 5\n').replace('image: nginx', 'image: httpd')));
        expectStatus(res, 409, 'Conflict');
        expect(res.body.message).toMatch(/^Apply failed with 2 conflicts: /);
        expect(res.body.details.causes).toEqual(
          expect.arrayContaining([
            { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' },
            { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.template.spec.containers[name="web"].image' },
          ]),
        );
      });

      it('takes ownership with force=true', async () => {
        await applyDeploy('ssa3', 'alice', manifest('ssa3', '  replicas: 2\n'));
        const res = await applyDeploy('ssa3', 'bob', manifest('ssa3', '  replicas: 5\n'), '&force=true');
        expect(res.status).toBe(200);
        expect(res.body.spec.replicas).toBe(5);
        expect(entry(res.body, 'alice')!.fieldsV1['f:spec']['f:replicas']).toBeUndefined();
        expect(entry(res.body, 'bob')!.fieldsV1['f:spec']['f:replicas']).toEqual({});
      });

      it('removes a field its manager stops applying, unless another manager owns it', async () => {
        await applyDeploy('ssa4', 'alice', manifest('ssa4', '  replicas: 2\n  minReadySeconds: 5\n'));
        await applyDeploy('ssa4', 'bob', manifest('ssa4', '  minReadySeconds: 5\n'));
        const res = await applyDeploy('ssa4', 'alice', manifest('ssa4', ''));
        expect(res.status).toBe(200);
        // Removed, then defaulted again (as Kubernetes does): nobody owns the 1.
        expect(res.body.spec.replicas).toBe(1);
        expect(res.body.spec.minReadySeconds).toBe(5);
      });

      it('merges applied containers with ones another manager added, by name', async () => {
        await applyDeploy('ssa5', 'alice', manifest('ssa5', ''));
        const added = await patch(`${DEPLOY}/ssa5`, STRATEGIC, { spec: { template: { spec: { containers: [{ name: 'log', image: 'busybox' }] } } } }, '?fieldManager=carol');
        expect(added.status).toBe(200);
        expect(entry(added.body, 'carol')).toMatchObject({ operation: 'Update' });
        const res = await applyDeploy('ssa5', 'alice', manifest('ssa5', '').replace('image: nginx', 'image: nginx:2'));
        expect(res.status).toBe(200);
        // The pull policy defaulted for `nginx` stays (nobody owns it), as in Kubernetes.
        expect(res.body.spec.template.spec.containers).toEqual([
          storedContainer({ name: 'web', image: 'nginx:2', imagePullPolicy: 'Always' }),
          storedContainer({ name: 'log', image: 'busybox' }),
        ]);
      });

      it('makes a field changed by a later update conflict for the applier, and records the updater', async () => {
        await applyDeploy('ssa6', 'alice', manifest('ssa6', '  replicas: 2\n'));
        const scaled = await patch(`${DEPLOY}/ssa6`, MERGE, { spec: { replicas: 7 } }, '?fieldManager=scaler');
        expect(entry(scaled.body, 'scaler')!.fieldsV1['f:spec']['f:replicas']).toEqual({});
        expect(entry(scaled.body, 'alice')!.fieldsV1['f:spec']['f:replicas']).toBeUndefined();
        const res = await applyDeploy('ssa6', 'alice', manifest('ssa6', '  replicas: 3\n'));
        expectStatus(res, 409, 'Conflict');
        expect(res.body.message).toBe('Apply failed with 1 conflict: conflict with "scaler" using apps/v1: .spec.replicas');
      });

      it('keeps managedFields on every write (create, update, patch)', async () => {
        const created = await s.call('POST', `${CM}?fieldManager=maker`, cm('mf'));
        expect(entry(created.body, 'maker')).toMatchObject({ operation: 'Update' });
        expect(entry(created.body, 'maker')!.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
        const put = await s.call('PUT', `${CM}/mf?fieldManager=editor`, { ...created.body, data: { a: '1', b: '2' } });
        expect(entry(put.body, 'editor')!.fieldsV1).toEqual({ 'f:data': { 'f:b': {} } });
        expect(entry(put.body, 'maker')!.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
        const patched = await patch(`${CM}/mf`, JSON_PATCH, [{ op: 'remove', path: '/data/b' }], '?fieldManager=remover');
        expect(entry(patched.body, 'editor')).toBeUndefined();
        expect((await s.call('GET', `${CM}/mf`)).body.metadata.managedFields).toEqual(patched.body.metadata.managedFields);
      });

      it('gives each created object the field set of its own fields, however many were made with the same ones', async () => {
        // Creates with the same fields share one set and its wire form (sharedCreatedFieldSet):
        // a later write of one of them changes its own entry only.
        const fieldsOf = async (name: string) => entry((await s.call('GET', `${CM}/${name}`)).body, 'maker')?.fieldsV1;
        for (const name of ['same-1', 'same-2']) expect((await s.call('POST', `${CM}?fieldManager=maker`, cm(name, { a: '1', b: '2' }))).status).toBe(201);
        expect((await s.call('POST', `${CM}?fieldManager=maker`, cm('other-order', { b: '2', a: '1' }))).status).toBe(201);
        expect((await s.call('POST', `${CM}?fieldManager=maker`, cm('other-keys', { a: '1', c: '3' }))).status).toBe(201);
        const taken = await patch(`${CM}/same-1`, MERGE, { data: { a: 'changed' } }, '?fieldManager=editor');
        expect(entry(taken.body, 'editor')!.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
        expect(entry(taken.body, 'maker')!.fieldsV1).toEqual({ 'f:data': { 'f:b': {} } });
        expect((await s.call('POST', `${CM}?fieldManager=maker`, cm('same-3', { a: '1', b: '2' }))).status).toBe(201);
        for (const name of ['same-2', 'same-3', 'other-order']) expect(await fieldsOf(name)).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} } });
        expect(await fieldsOf('other-keys')).toEqual({ 'f:data': { 'f:a': {}, 'f:c': {} } });
        expect(await fieldsOf('same-1')).toEqual({ 'f:data': { 'f:b': {} } });
      });

      it('answers 422 to an apply without fieldManager and 400 to bad apply input, changing nothing', async () => {
        await applyDeploy('ssa-bad', 'alice', manifest('ssa-bad', ''));
        await unchanged(async () => {
          const missing = await patch(`${DEPLOY}/ssa-bad`, APPLY, manifest('ssa-bad', ''));
          expectStatus(missing, 422, 'Invalid');
          expect(missing.body.details.causes[0]).toMatchObject({ field: 'fieldManager', reason: 'FieldValueRequired' });
          expectStatus(await applyDeploy('ssa-bad', 'alice', 'spec: [unclosed'), 400, 'BadRequest');
          expectStatus(await applyDeploy('ssa-bad', 'alice', '- a\n- b\n'), 400, 'BadRequest');
          expectStatus(await applyDeploy('ssa-bad', 'alice', manifest('ssa-bad', ''), '&force=maybe'), 400, 'BadRequest');
          expectStatus(await applyDeploy('ssa-bad', 'alice', manifest('other-name', '')), 400, 'BadRequest');
          expectStatus(await applyDeploy('ssa-bad', 'alice', manifest('ssa-bad', '  replicas: lots\n')), 422, 'Invalid');
        });
      });
    });

    describe('writes that change nothing', () => {
      // Issue #21: the same patch or apply three times gave three versions and two identical MODIFIED events.
      it('keep the resourceVersion and store nothing: merge, JSON and strategic patch, PUT, apply', async () => {
        const created = (await s.call('POST', DEPLOY, deployment('noop'))).body;
        const changed = await patch(`${DEPLOY}/noop`, MERGE, { spec: { replicas: 2 } });
        expect(changed.status).toBe(200);
        const statusWritten = await patch(`${DEPLOY}/noop/status`, MERGE, { status: { replicas: 1 } });
        expect(statusWritten.status).toBe(200);
        const version = statusWritten.body.metadata.resourceVersion;
        expect(version).not.toBe(created.metadata.resourceVersion);
        const same = async (res: CallResult) => {
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expect(res.body.metadata.resourceVersion).toBe(version);
          expect(res.body.spec.replicas).toBe(2);
        };
        await unchanged(async () => {
          await same(await patch(`${DEPLOY}/noop`, MERGE, { spec: { replicas: 2 } }));
          await same(await patch(`${DEPLOY}/noop`, MERGE, { spec: { replicas: 2 } }));
          await same(await patch(`${DEPLOY}/noop`, JSON_PATCH, [{ op: 'replace', path: '/spec/replicas', value: 2 }]));
          await same(await patch(`${DEPLOY}/noop`, STRATEGIC, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } } } }));
          await same(await s.call('PUT', `${DEPLOY}/noop`, statusWritten.body));
          await same(await patch(`${DEPLOY}/noop/status`, MERGE, { status: { replicas: 1 } }));
          await same(await patch(`${DEPLOY}/noop?dryRun=All`, MERGE, { spec: { replicas: 2 } }));
        });
      });

      it('apply the same configuration again without a new version; the manager\'s time moves only with a change', async () => {
        const config = (replicas: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'noop-apply' }, data: { replicas: String(replicas) } });
        const apply = (replicas: number) => patch(`${CM}/noop-apply`, APPLY, config(replicas), '?fieldManager=noop');
        expect((await apply(1)).status).toBe(201);
        const first = await apply(2);
        expect(first.status).toBe(200);
        const entry = (res: CallResult) => (res.body.metadata.managedFields as { manager: string; time: string }[]).find((e) => e.manager === 'noop')!;
        // Times have a resolution of one second: step past it, so that a kept time shows.
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        const again = await unchanged(async () => {
          const res = await apply(2);
          expect(await apply(2)).toMatchObject({ status: 200 });
          return res;
        });
        expect(again.status).toBe(200);
        expect(again.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
        expect(entry(again).time).toBe(entry(first).time);
        const moved = await apply(3);
        expect(moved.body.metadata.resourceVersion).not.toBe(first.body.metadata.resourceVersion);
        expect(entry(moved).time > entry(first).time).toBe(true);
      });

      it('send no watch event', async () => {
        const created = (await s.call('POST', CM, cm('noop-watch', { a: '1' }))).body;
        const from = Number(created.metadata.resourceVersion);
        await patch(`${CM}/noop-watch`, MERGE, { data: { a: '1' } });
        await patch(`${CM}/noop-watch`, MERGE, { data: { a: '2' } });
        await patch(`${CM}/noop-watch`, MERGE, { data: { a: '2' } });
        const events: string[] = [];
        const sub = s.store.watch(`${s.store.prefix}core/configmaps/default/noop-watch`, from).subscribe((e) => events.push(e.type));
        // A later write is the marker that every earlier event has arrived.
        await patch(`${CM}/noop-watch`, MERGE, { data: { a: '3' } });
        await expect.poll(() => events.length).toBe(2);
        sub.unsubscribe();
        expect(events).toEqual(['put', 'put']);
      });
    });

    describe('patch media types', () => {
      it('answers 415 to a PATCH in a media type that is not a patch type, changing nothing', async () => {
        await s.call('POST', CM, cm('mt'));
        await unchanged(async () => {
          expectStatus(await patch(`${CM}/mt`, 'application/json', { data: { a: '2' } }), 415, 'UnsupportedMediaType');
          expectStatus(await patch(`${CM}/mt`, 'text/plain', 'a'), 415, 'UnsupportedMediaType');
          expectStatus(await patch(`${CM}/mt`, 'application/yaml', 'data: {}'), 415, 'UnsupportedMediaType');
        });
      });
    });
  });
}

describe('unsafe deletion behind its feature gate', () => {
  it('answers 400 to the option when AllowUnsafeMalformedObjectDeletion is off (the default)', async () => {
    const s = await startTestServer('memory');
    try {
      await s.call('POST', CM, cm('gated'));
      const before = await s.store.revision();
      const res = await s.call('DELETE', `${CM}/gated?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
      expectStatus(res, 400, 'BadRequest');
      expect(await s.store.revision()).toBe(before);
    } finally {
      await s.close();
    }
  });
});
