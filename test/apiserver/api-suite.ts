import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type BackendName, type TestServer } from './harness.js';

const cm = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...((extra['metadata'] as object) ?? {}) },
  data: { a: 'b' },
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'metadata')),
});

const pod = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...metadata },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec },
});

const CM = '/api/v1/namespaces/default/configmaps';

function expectStatus(res: { status: number; body: any }, code: number, reason: string) {
  expect(res.status).toBe(code);
  expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  expect(typeof res.body.message).toBe('string');
}

export function apiServerSuite(backend: BackendName) {
  describe(`svc-apiserver on the ${backend} store`, () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer(backend, { maxRequestBodyBytes: 64 * 1024 });
    });
    afterAll(async () => {
      await s.close();
    });

    /** Asserts a bad request changed nothing: the store's revision did not move. */
    async function unchanged(request: () => Promise<void>) {
      const before = await s.store.revision();
      await request();
      expect(await s.store.revision()).toBe(before);
    }

    describe('objects and verbs', () => {
      it('creates, reads, lists, updates and deletes a namespaced object', async () => {
        const created = await s.call('POST', CM, cm('crud'));
        expect(created.status).toBe(201);
        const meta = created.body.metadata;
        expect(meta).toMatchObject({ name: 'crud', namespace: 'default' });
        expect(meta.uid).toMatch(/^[0-9a-f-]{36}$/);
        expect(meta.resourceVersion).toMatch(/^\d+$/);
        expect(Date.parse(meta.creationTimestamp)).not.toBeNaN();

        const got = await s.call('GET', `${CM}/crud`);
        expect(got.status).toBe(200);
        expect(got.body).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { a: 'b' } });
        expect(got.body.metadata.resourceVersion).toBe(meta.resourceVersion);

        const list = await s.call('GET', CM);
        expect(list.status).toBe(200);
        expect(list.body.kind).toBe('ConfigMapList');
        expect(list.body.apiVersion).toBe('v1');
        expect(Number(list.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(meta.resourceVersion));
        expect(list.body.items.map((i: any) => i.metadata.name)).toContain('crud');

        const updated = await s.call('PUT', `${CM}/crud`, { ...got.body, data: { a: 'c' } });
        expect(updated.status).toBe(200);
        expect(Number(updated.body.metadata.resourceVersion)).toBeGreaterThan(Number(meta.resourceVersion));
        expect(updated.body.metadata.uid).toBe(meta.uid);
        expect(updated.body.metadata.creationTimestamp).toBe(meta.creationTimestamp);

        const deleted = await s.call('DELETE', `${CM}/crud`);
        expect(deleted.status).toBe(200);
        expect(deleted.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'crud' } });
        const gone = await s.call('GET', `${CM}/crud`);
        expectStatus(gone, 404, 'NotFound');
        expect(gone.body.message).toBe('configmaps "crud" not found');
      });

      it('answers 409 Conflict to an update with a stale resourceVersion and keeps the object', async () => {
        const created = (await s.call('POST', CM, cm('stale'))).body;
        await s.call('PUT', `${CM}/stale`, { ...created, data: { a: 'new' } });
        await unchanged(async () => {
          const res = await s.call('PUT', `${CM}/stale`, { ...created, data: { a: 'lost' } });
          expectStatus(res, 409, 'Conflict');
          expect(res.body.message).toContain('the object has been modified');
        });
        expect((await s.call('GET', `${CM}/stale`)).body.data).toEqual({ a: 'new' });
      });

      it('requires the resourceVersion on an update of an existing object', async () => {
        await s.call('POST', CM, cm('needs-rv'));
        await unchanged(async () => {
          const res = await s.call('PUT', `${CM}/needs-rv`, cm('needs-rv'));
          expectStatus(res, 422, 'Invalid');
          expect(res.body.details.causes[0].field).toBe('metadata.resourceVersion');
        });
      });

      it('creates the object on a PUT when it does not exist', async () => {
        const res = await s.call('PUT', `${CM}/put-created`, cm('put-created'));
        expect(res.status).toBe(201);
        expect((await s.call('GET', `${CM}/put-created`)).status).toBe(200);
      });

      it('answers 409 AlreadyExists to a second create of one name', async () => {
        await s.call('POST', CM, cm('twice'));
        await unchanged(async () => {
          const res = await s.call('POST', CM, cm('twice'));
          expectStatus(res, 409, 'AlreadyExists');
          expect(res.body.message).toBe('configmaps "twice" already exists');
        });
      });

      it('lets a deleted name be reused', async () => {
        await s.call('POST', CM, cm('reuse'));
        const first = (await s.call('GET', `${CM}/reuse`)).body.metadata.uid;
        await s.call('DELETE', `${CM}/reuse`);
        const again = await s.call('POST', CM, cm('reuse'));
        expect(again.status).toBe(201);
        expect(again.body.metadata.uid).not.toBe(first);
      });

      it('generates a unique name from generateName', async () => {
        const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } };
        const a = await s.call('POST', CM, body);
        const b = await s.call('POST', CM, body);
        expect(a.status).toBe(201);
        expect(a.body.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
        expect(b.body.metadata.name).not.toBe(a.body.metadata.name);
      });

      it('serves other groups under /apis and cluster-scoped types without a namespace', async () => {
        const deploy = {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web' },
          spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: pod('x').spec } },
        };
        const created = await s.call('POST', '/apis/apps/v1/namespaces/default/deployments', deploy);
        expect(created.status).toBe(201);
        expect(created.body.apiVersion).toBe('apps/v1');
        expect((await s.call('GET', '/apis/apps/v1/namespaces/default/deployments/web')).status).toBe(200);

        const node = await s.call('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
        expect(node.status).toBe(201);
        expect(node.body.metadata.namespace).toBeUndefined();
        expect((await s.call('GET', '/api/v1/nodes/n1')).status).toBe(200);
        expectStatus(await s.call('GET', '/api/v1/namespaces/default/nodes/n1'), 404, 'NotFound');
        expectStatus(await s.call('GET', '/api/v1/pods/some-pod'), 404, 'NotFound');
      });

      it('lists a namespaced type across all namespaces', async () => {
        await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'across' } });
        await s.call('POST', '/api/v1/namespaces/across/configmaps', cm('in-across'));
        await s.call('POST', CM, cm('in-default'));
        const all = await s.call('GET', '/api/v1/configmaps');
        const names = all.body.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`);
        expect(names).toEqual(expect.arrayContaining(['across/in-across', 'default/in-default']));
        const one = await s.call('GET', '/api/v1/namespaces/across/configmaps');
        expect(one.body.items.map((i: any) => i.metadata.name)).toEqual(['in-across']);
      });

      it('deletes a collection, only what the selector matches', async () => {
        await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dc' } });
        for (const [name, tier] of [['a', 'x'], ['b', 'x'], ['c', 'y']]) {
          await s.call('POST', '/api/v1/namespaces/dc/configmaps', cm(name!, { metadata: { labels: { tier } } }));
        }
        const res = await s.call('DELETE', '/api/v1/namespaces/dc/configmaps?labelSelector=tier%3Dx');
        expect(res.status).toBe(200);
        expect(res.body.items.map((i: any) => i.metadata.name).sort()).toEqual(['a', 'b']);
        const left = await s.call('GET', '/api/v1/namespaces/dc/configmaps');
        expect(left.body.items.map((i: any) => i.metadata.name)).toEqual(['c']);
      });

      it('honours delete preconditions', async () => {
        const created = (await s.call('POST', CM, cm('precond'))).body;
        await unchanged(async () => {
          const res = await s.call('DELETE', `${CM}/precond`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } });
          expectStatus(res, 409, 'Conflict');
          expect(res.body.message).toContain('Precondition failed: UID in precondition');
        });
        const ok = await s.call('DELETE', `${CM}/precond`, { preconditions: { uid: created.metadata.uid } });
        expect(ok.status).toBe(200);
      });
    });

    describe('metadata rules', () => {
      it('rejects a body whose namespace differs from the path with 400', async () => {
        await unchanged(async () => {
          expectStatus(await s.call('POST', CM, cm('ns-mismatch', { metadata: { namespace: 'other' } })), 400, 'BadRequest');
        });
      });

      it('rejects a PUT whose body names another object with 400', async () => {
        await unchanged(async () => {
          expectStatus(await s.call('PUT', `${CM}/one-name`, cm('other-name')), 400, 'BadRequest');
        });
      });

      it('rejects a missing name with 422', async () => {
        await unchanged(async () => {
          const res = await s.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} });
          expectStatus(res, 422, 'Invalid');
          expect(res.body.details.causes.some((c: any) => c.field === 'metadata.name')).toBe(true);
        });
      });

      for (const bad of ['Upper', 'under_score', '-lead', 'trail-', 'a'.repeat(254), 'dots..double']) {
        it(`rejects the invalid name ${JSON.stringify(bad.slice(0, 20))} with 422 Invalid`, async () => {
          await unchanged(async () => {
            const res = await s.call('POST', CM, cm(bad));
            expectStatus(res, 422, 'Invalid');
            expect(res.body.details.causes.some((c: any) => c.field === 'metadata.name')).toBe(true);
          });
        });
      }

      it('rejects invalid label keys and values with 422', async () => {
        for (const labels of [{ 'bad key': 'v' }, { k: 'v'.repeat(64) }, { k: 'bad value!' }, { ['a'.repeat(64)]: 'v' }]) {
          await unchanged(async () => {
            const res = await s.call('POST', CM, cm('labels', { metadata: { labels } }));
            expectStatus(res, 422, 'Invalid');
            expect(res.body.details.causes.some((c: any) => String(c.field).startsWith('metadata.labels'))).toBe(true);
          });
        }
      });

      it('rejects annotations over 256 KiB with 422', async () => {
        const big = await startTestServer(backend);
        try {
          const res = await big.call('POST', CM, cm('annotated', { metadata: { annotations: { big: 'x'.repeat(262_145) } } }));
          expectStatus(res, 422, 'Invalid');
          expect(res.body.details.causes.some((c: any) => String(c.field).startsWith('metadata.annotations'))).toBe(true);
        } finally {
          await big.close();
        }
      });

      it('rejects a namespace name that is not a DNS label', async () => {
        await unchanged(async () => {
          expectStatus(await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'has.dot' } }), 422, 'Invalid');
        });
      });
    });

    describe('namespaces', () => {
      it('has default, svc-system, svc-public and svc-node-lease from the first start', async () => {
        const res = await s.call('GET', '/api/v1/namespaces');
        const names = res.body.items.map((i: any) => i.metadata.name);
        expect(names).toEqual(expect.arrayContaining(['default', 'svc-system', 'svc-public', 'svc-node-lease']));
        expect(res.body.items.find((i: any) => i.metadata.name === 'default').status.phase).toBe('Active');
      });

      it('answers 404 to a create into a namespace that does not exist', async () => {
        await unchanged(async () => {
          const res = await s.call('POST', '/api/v1/namespaces/nowhere/configmaps', cm('x'));
          expectStatus(res, 404, 'NotFound');
          expect(res.body.message).toBe('namespaces "nowhere" not found');
        });
      });

      it('marks a deleted namespace Terminating and refuses new content in it with 403', async () => {
        await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
        await s.call('POST', '/api/v1/namespaces/doomed/configmaps', cm('inside'));
        const res = await s.call('DELETE', '/api/v1/namespaces/doomed');
        expect(res.status).toBe(200);
        const ns = (await s.call('GET', '/api/v1/namespaces/doomed')).body;
        expect(ns.status.phase).toBe('Terminating');
        expect(Date.parse(ns.metadata.deletionTimestamp)).not.toBeNaN();
        await unchanged(async () => {
          expectStatus(await s.call('POST', '/api/v1/namespaces/doomed/configmaps', cm('late')), 403, 'Forbidden');
        });
        expect((await s.call('GET', '/api/v1/namespaces/doomed/configmaps/inside')).status).toBe(200);
      });

      it('does not support deletecollection of namespaces (405)', async () => {
        await unchanged(async () => {
          expectStatus(await s.call('DELETE', '/api/v1/namespaces'), 405, 'MethodNotAllowed');
        });
      });
    });

    describe('selectors', () => {
      const NS = '/api/v1/namespaces/sel';
      beforeAll(async () => {
        await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sel' } });
        // Its pods' account: the API server makes none (the serviceaccount loop does).
        await s.call('POST', `${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
        const pods: [string, Record<string, string>, string | undefined][] = [
          ['p1', { app: 'web', tier: 'front' }, 'node-a'],
          ['p2', { app: 'web', tier: 'back' }, 'node-b'],
          ['p3', { app: 'db' }, 'node-a'],
          ['p4', {}, undefined],
        ];
        for (const [name, labels, nodeName] of pods) {
          await s.call('POST', `${NS}/pods`, pod(name, nodeName ? { nodeName } : {}, { labels }));
        }
      });
      const names = async (query: string) => {
        const res = await s.call('GET', `${NS}/pods?${query}`);
        expect(res.status).toBe(200);
        return res.body.items.map((i: any) => i.metadata.name).sort();
      };
      const cases: [string, string[]][] = [
        ['labelSelector=app%3Dweb', ['p1', 'p2']],
        ['labelSelector=app%3D%3Dweb', ['p1', 'p2']],
        ['labelSelector=app!%3Dweb', ['p3', 'p4']],
        ['labelSelector=tier%20in%20(front,back)', ['p1', 'p2']],
        ['labelSelector=app%20notin%20(web)', ['p3', 'p4']],
        ['labelSelector=tier', ['p1', 'p2']],
        ['labelSelector=!tier', ['p3', 'p4']],
        ['labelSelector=app%3Dweb,tier%3Dback', ['p2']],
        ['fieldSelector=metadata.name%3Dp3', ['p3']],
        ['fieldSelector=metadata.namespace%3Dsel', ['p1', 'p2', 'p3', 'p4']],
        ['fieldSelector=spec.nodeName%3Dnode-a', ['p1', 'p3']],
        ['fieldSelector=spec.nodeName!%3Dnode-a', ['p2', 'p4']],
        ['fieldSelector=spec.nodeName%3D', ['p4']],
        ['fieldSelector=spec.nodeName%3Dnode-a&labelSelector=app%3Ddb', ['p3']],
      ];
      for (const [query, expected] of cases) {
        it(`selects ${expected.join(',')} with ${decodeURIComponent(query)}`, async () => {
          expect(await names(query)).toEqual(expected);
        });
      }
      for (const query of [
        'labelSelector=app%20in%20(',
        'labelSelector=%3Dweb',
        'labelSelector=app%20in%20web',
        'labelSelector=bad%20key%3Dv',
        'fieldSelector=spec.unknownField%3Dx',
        'fieldSelector=metadata.name',
        'limit=-3',
      ]) {
        it(`answers 400 BadRequest to ${decodeURIComponent(query)}`, async () => {
          expectStatus(await s.call('GET', `${NS}/pods?${query}`), 400, 'BadRequest');
        });
      }
      it('answers 400 to a bad selector on deletecollection and deletes nothing', async () => {
        await unchanged(async () => {
          expectStatus(await s.call('DELETE', `${NS}/pods?labelSelector=app%20in%20(`), 400, 'BadRequest');
        });
      });
    });

    describe('bad input', () => {
      it('answers 400 to malformed JSON', async () => {
        await unchanged(async () => expectStatus(await s.call('POST', CM, '{"kind": "ConfigMap",'), 400, 'BadRequest'));
      });
      it('answers 400 to a JSON body that is not an object', async () => {
        await unchanged(async () => expectStatus(await s.call('POST', CM, '[1,2]'), 400, 'BadRequest'));
      });
      it('answers 400 to a body whose kind does not match the path', async () => {
        await unchanged(async () => expectStatus(await s.call('POST', CM, { ...cm('k'), kind: 'Secret' }), 400, 'BadRequest'));
      });
      it('answers 400 to a body whose apiVersion does not match the path', async () => {
        await unchanged(async () => expectStatus(await s.call('POST', CM, { ...cm('k'), apiVersion: 'apps/v1' }), 400, 'BadRequest'));
      });
      it('answers 422 to a field of the wrong type', async () => {
        await unchanged(async () => {
          const res = await s.call('POST', `${CM.replace('configmaps', 'pods')}`, pod('typed', { containers: 'not-a-list' }));
          expectStatus(res, 422, 'Invalid');
        });
      });
      it('answers 413 to a body over the size limit', async () => {
        await unchanged(async () => {
          const res = await s.call('POST', CM, cm('huge', { data: { a: 'x'.repeat(70 * 1024) } }));
          expectStatus(res, 413, 'RequestEntityTooLarge');
        });
      });
      it('answers 415 to a body in a media type the server does not decode', async () => {
        await unchanged(async () => {
          const res = await s.call('POST', CM, 'kind: ConfigMap', { headers: { 'content-type': 'text/plain' } });
          expectStatus(res, 415, 'UnsupportedMediaType');
        });
      });
      it('answers 404 to an unknown resource', async () => {
        expectStatus(await s.call('GET', '/api/v1/namespaces/default/widgets'), 404, 'NotFound');
        expectStatus(await s.call('GET', '/apis/nogroup.example/v1/things'), 404, 'NotFound');
        expectStatus(await s.call('GET', '/api/v9/pods'), 404, 'NotFound');
      });
      it('answers 405 to a verb the resource does not support', async () => {
        await unchanged(async () => {
          expectStatus(await s.call('POST', '/api/v1/configmaps', cm('no-namespace')), 405, 'MethodNotAllowed');
          expectStatus(await s.call('POST', `${CM}/named`, cm('named')), 405, 'MethodNotAllowed');
        });
      });
      it('answers 400 to a bad dryRun value', async () => {
        await unchanged(async () => expectStatus(await s.call('POST', `${CM}?dryRun=Some`, cm('dry')), 400, 'BadRequest'));
      });
      it('answers 400 to a resourceVersion that is not a number on update', async () => {
        await s.call('POST', CM, cm('bad-rv'));
        await unchanged(async () => {
          const res = await s.call('PUT', `${CM}/bad-rv`, cm('bad-rv', { metadata: { resourceVersion: 'abc' } }));
          expectStatus(res, 400, 'BadRequest');
        });
      });
    });

    describe('authentication', () => {
      it('answers 401 without a token and with a bad one', async () => {
        await unchanged(async () => {
          const anonymous = await s.app.inject({ method: 'GET', url: CM });
          expectStatus({ status: anonymous.statusCode, body: JSON.parse(anonymous.body) }, 401, 'Unauthorized');
          expectStatus(await s.call('POST', CM, cm('x'), { headers: { authorization: 'Bearer wrong' } }), 401, 'Unauthorized');
        });
      });
      it('serves the health checks without a token', async () => {
        for (const path of ['/healthz', '/livez', '/readyz']) {
          const res = await s.app.inject({ method: 'GET', url: path });
          expect(res.statusCode).toBe(200);
          expect(res.body).toBe('ok');
        }
      });
    });

    describe('discovery', () => {
      it('serves /api, /api/v1, /apis, /apis/<group> and /apis/<group>/<version>', async () => {
        expect((await s.call('GET', '/api')).body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
        const core = (await s.call('GET', '/api/v1')).body;
        expect(core).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
        expect(core.resources.find((r: any) => r.name === 'pods')).toMatchObject({
          kind: 'Pod',
          namespaced: true,
          shortNames: ['po'],
          verbs: expect.arrayContaining(['create', 'delete', 'get', 'list', 'update']),
        });
        expect(core.resources.find((r: any) => r.name === 'namespaces')).toMatchObject({ namespaced: false });
        const groups = (await s.call('GET', '/apis')).body;
        expect(groups.kind).toBe('APIGroupList');
        expect(groups.groups.map((g: any) => g.name)).toEqual(expect.arrayContaining(['apps', 'batch', 'coordination.svc.io', 'rbac.authorization.svc.io']));
        expect((await s.call('GET', '/apis/apps')).body).toMatchObject({ kind: 'APIGroup', name: 'apps', preferredVersion: { version: 'v1' } });
        const apps = (await s.call('GET', '/apis/apps/v1')).body;
        expect(apps.resources.find((r: any) => r.name === 'deployments')).toMatchObject({ kind: 'Deployment', shortNames: ['deploy'] });
        expectStatus(await s.call('GET', '/apis/nothing'), 404, 'NotFound');
      });
      it('serves /version', async () => {
        const v = (await s.call('GET', '/version')).body;
        expect(v.major).toBe('1');
        expect(v.gitVersion).toMatch(/^v1\.\d+\.\d+/);
      });
      it('serves an OpenAPI v3 index that declares fieldValidation on PATCH', async () => {
        const root = (await s.call('GET', '/openapi/v3')).body;
        const url = root.paths['api/v1'].serverRelativeURL as string;
        const doc = (await s.call('GET', url)).body;
        const patch = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch;
        expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
        expect(patch.parameters.map((p: any) => p.name)).toContain('fieldValidation');
      });
    });
  });
}
