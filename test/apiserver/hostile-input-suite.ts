import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinTypes, type ResourceType } from '../../src/api/index.js';
import { encodeCbor } from '../../src/encoding/index.js';
import { startTestServer, type BackendName, type CallResult, type TestServer } from './harness.js';

/**
 * Hostile inputs (issue #29) and the spellings real clients send (issue #27): every one is a 4xx
 * Status that changes nothing, or is read as Kubernetes reads it. Shared by the memory, sqlite and
 * etcd runs (hostile-input-*.test.ts).
 */

const NS = '/api/v1/namespaces/default';
const CM = `${NS}/configmaps`;
const SECRETS = `${NS}/secrets`;
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';

const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

const cm = (name: string, data: Record<string, string> = { a: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { set: 'hostile' } }, data });

function expectStatus(res: CallResult, code: number, reason?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(code);
  expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, ...(reason ? { reason } : {}) });
}

/** A watch's answer as text (the harness parses a one-event answer as JSON). */
const textOf = (res: CallResult): string => (typeof res.body === 'string' ? res.body : JSON.stringify(res.body));

const collectionPath = (type: ResourceType) =>
  `${type.group === '' ? '/api' : `/apis/${type.group}`}/${type.version}${type.namespaced ? '/namespaces/default' : ''}/${type.resource}`;

export function hostileInputSuite(backend: BackendName) {
  describe(`hostile and client-spelled inputs on the ${backend} store`, () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer(backend, { featureGates: { CBORServingAndStorage: true } });
      for (const name of ['keep-1', 'keep-2']) expect((await s.call('POST', CM, cm(name))).status).toBe(201);
    });
    afterAll(async () => {
      await s.close();
    });

    const send = (method: string, url: string, body: unknown, type: string) =>
      s.call(method, url, typeof body === 'string' ? body : JSON.stringify(body), { headers: { 'content-type': type } });

    /** Runs `request`, asserting the store's revision did not move. */
    async function unchanged<T>(request: () => Promise<T>): Promise<T> {
      const before = await s.store.revision();
      const result = await request();
      expect(await s.store.revision()).toBe(before);
      return result;
    }

    const names = async (url = CM): Promise<string[]> => (await s.call('GET', url)).body.items.map((i: { metadata: { name: string } }) => i.metadata.name);

    describe('an empty name, namespace or group segment (issue #29, 1)', () => {
      const paths = [
        `${CM}/`,
        '/api/v1/namespaces//configmaps',
        '/api/v1/namespaces//configmaps/keep-1',
        `${CM}//`,
        `${CM}//status`,
        `${NS}/pods//status`,
        `${DEPLOY}//scale`,
        '/api/v1/namespaces/',
        '/api/v1/namespaces//finalize',
        '/api/v1/nodes/',
        '/apis/rbac.authorization.k8s.io/v1/clusterroles/',
        '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/',
        '/apis/apps/v1/namespaces/default/deployments/',
        '/apis//v1/namespaces/default/deployments',
        '/api//namespaces/default/configmaps',
      ];
      for (const method of ['DELETE', 'GET', 'HEAD', 'PUT', 'PATCH', 'POST']) {
        it(`answers ${method} with a 404 Status on every path shape, deleting nothing`, async () => {
          const namespaces = await names('/api/v1/namespaces');
          for (const path of paths) {
            const body = method === 'PATCH' ? '{}' : method === 'PUT' || method === 'POST' ? JSON.stringify(cm('x')) : undefined;
            const res = await unchanged(() =>
              s.call(method, path, body, { headers: { 'content-type': method === 'PATCH' ? MERGE : 'application/json' } }),
            );
            expect(res.status, `${method} ${path}`).toBe(404);
            if (method !== 'HEAD') expect(res.body, `${method} ${path}`).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 });
          }
          expect(await names()).toEqual(expect.arrayContaining(['keep-1', 'keep-2']));
          expect(await names('/api/v1/namespaces')).toEqual(namespaces);
        });
      }

      it('answers a path segment that does not decode (%zz, a cut UTF-8 sequence) with a 400 Status', async () => {
        for (const path of [`${CM}/%zz`, `${CM}/%E0%A4%A`, '/apis/%/v1']) {
          expectStatus(await unchanged(() => s.call('DELETE', path)), 400, 'BadRequest');
        }
        expect(await names()).toEqual(expect.arrayContaining(['keep-1', 'keep-2']));
      });

      it('still serves discovery with a trailing slash and the collection without one', async () => {
        expect((await s.call('GET', '/api/')).status).toBe(200);
        expect((await s.call('GET', '/apis/')).status).toBe(200);
        expect((await s.call('GET', '/api/v1/')).status).toBe(200);
        expect(await names()).toEqual(expect.arrayContaining(['keep-1', 'keep-2']));
      });
    });

    describe('dryRun (issue #29, 2)', () => {
      it('answers 400 to an empty or bare dryRun, or any value but All among repeated ones, on every verb', async () => {
        await s.call('POST', CM, cm('dry-target'));
        for (const query of ['?dryRun=', '?dryRun', '?dryRun=All&dryRun=', '?dryRun=all']) {
          await unchanged(async () => {
            expectStatus(await s.call('POST', `${CM}${query}`, cm('dry-new')), 400, 'BadRequest');
            expectStatus(await s.call('PUT', `${CM}/dry-target${query}`, cm('dry-target')), 400, 'BadRequest');
            expectStatus(await send('PATCH', `${CM}/dry-target${query}`, { data: { a: '2' } }, MERGE), 400, 'BadRequest');
            expectStatus(await send('PATCH', `${CM}/dry-target${query}&fieldManager=m`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry-target\n', APPLY), 400, 'BadRequest');
            expectStatus(await s.call('DELETE', `${CM}/dry-target${query}`), 400, 'BadRequest');
            expectStatus(await s.call('DELETE', `${CM}${query}`), 400, 'BadRequest');
          });
        }
        expect((await s.call('GET', `${CM}/dry-new`)).status).toBe(404);
        expect(await names()).toEqual(expect.arrayContaining(['keep-1', 'keep-2', 'dry-target']));
        const dry = await unchanged(() => s.call('POST', `${CM}?dryRun=All&dryRun=All`, cm('dry-new')));
        expect(dry.status).toBe(201);
      });
    });

    describe('__proto__ and constructor keys (issue #29, 3)', () => {
      const hostileData = '{"__proto__":"p","constructor":"c","toString":"t","hasOwnProperty":"h"}';

      const expectHostileData = (data: Record<string, unknown>) => {
        expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
        expect(Object.hasOwn(data, '__proto__')).toBe(true);
        expect(Object.getOwnPropertyDescriptor(data, '__proto__')?.value).toBe('p');
        expect(Object.hasOwn(data, 'constructor') && data['constructor']).toBe('c');
        expect(Object.hasOwn(data, 'toString') && data['toString']).toBe('t');
      };

      it('stores them as data keys of a ConfigMap and as label and annotation keys, through create, get and list', async () => {
        const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"proto-data","labels":{"constructor":"l"},"annotations":{"constructor":"a","toString":"b"}},"data":${hostileData}}`;
        const created = await send('POST', CM, body, 'application/json');
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expectHostileData(created.body.data);
        const got = await s.call('GET', `${CM}/proto-data`);
        expectHostileData(got.body.data);
        expect(got.body.metadata.labels).toEqual({ constructor: 'l' });
        expect(got.body.metadata.annotations).toEqual({ constructor: 'a', toString: 'b' });
        const listed = await s.call('GET', `${CM}?labelSelector=constructor%3Dl`);
        expect(listed.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['proto-data']);
        expectHostileData(listed.body.items[0].data);
      });

      it("checks a map's __proto__ value by the map's value schema: a Secret's must be base64 (422), and is stored when it is", async () => {
        const secret = (value: string) => `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"proto-secret"},"data":{"__proto__":"${value}","constructor":"Yw=="}}`;
        const bad = await unchanged(() => send('POST', SECRETS, secret('not base64!'), 'application/json'));
        expectStatus(bad, 422, 'Invalid');
        expect(bad.body.message).toContain('data[__proto__]');
        const good = await send('POST', SECRETS, secret('cA=='), 'application/json');
        expect(good.status, JSON.stringify(good.body)).toBe(201);
        const got = (await s.call('GET', `${SECRETS}/proto-secret`)).body.data;
        expect(Object.getOwnPropertyDescriptor(got, '__proto__')?.value).toBe('cA==');
        expect(got.constructor).toBe('Yw==');
      });

      it('drops them as unknown fields of a struct (a warning; Strict: 400), never reaching a prototype', async () => {
        const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"proto-top","constructor":"x","__proto__":{"labels":{"a":"b"}}},"__proto__":{"data":{"x":"y"}},"constructor":{"y":1}}';
        const strict = await unchanged(() => send('POST', `${CM}?fieldValidation=Strict`, body, 'application/json'));
        expectStatus(strict, 400, 'BadRequest');
        expect(strict.body.message).toContain('unknown field');
        const created = await send('POST', CM, body, 'application/json');
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body.data).toBeUndefined();
        expect(created.body.metadata.labels).toBeUndefined();
        expect(String(created.headers['warning'])).toContain('unknown field \\"__proto__\\"');
        expect(String(created.headers['warning'])).toContain('unknown field \\"constructor\\"');
      });

      it('answers every kind with a 2xx or a 4xx, never a 500, when its body and spec carry them', async () => {
        for (const type of builtinTypes) {
          if (!type.verbs.includes('create') || type.resource === 'namespaces') continue;
          const body = `{"apiVersion":"${type.group === '' ? '' : `${type.group}/`}${type.version}","kind":"${type.kind}","metadata":{"name":"proto-kind","constructor":"x","__proto__":{"a":1},"labels":{"constructor":"v"}},"spec":{"__proto__":{"a":1},"constructor":{"b":2}},"constructor":{},"__proto__":{}}`;
          const res = await send('POST', collectionPath(type), body, 'application/json');
          expect(res.status, `${type.kind}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
        }
        expect(({} as Record<string, unknown>)['a']).toBeUndefined();
      });

      it('merges them as data in merge and strategic merge patches, and leaves a top-level one unknown', async () => {
        await s.call('POST', CM, cm('proto-patch'));
        for (const type of [MERGE, STRATEGIC]) {
          const res = await send('PATCH', `${CM}/proto-patch`, `{"data":${hostileData}}`, type);
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expectHostileData(res.body.data);
          const top = await send('PATCH', `${CM}/proto-patch`, '{"__proto__":{"data":{"z":"z"}},"constructor":{"kind":"Secret"},"metadata":{"labels":{"constructor":"m"}}}', type);
          expect(top.status, JSON.stringify(top.body)).toBe(200);
          expect(top.body.kind).toBe('ConfigMap');
          expect(top.body.data.z).toBeUndefined();
          expect(top.body.metadata.labels.constructor).toBe('m');
          const removed = await send('PATCH', `${CM}/proto-patch`, '{"data":{"__proto__":null,"constructor":null}}', type);
          expect(Object.keys(removed.body.data).sort()).toEqual(['a', 'hasOwnProperty', 'toString']);
        }
      });

      it('reads JSON patch paths as own fields: /data/__proto__ is data, /__proto__/x and a missing /data/constructor do not exist (422)', async () => {
        await s.call('POST', CM, cm('proto-json'));
        const added = await send('PATCH', `${CM}/proto-json`, [
          { op: 'add', path: '/data/__proto__', value: 'p' },
          { op: 'add', path: '/data/constructor', value: 'c' },
          { op: 'test', path: '/data/__proto__', value: 'p' },
        ], JSON_PATCH);
        expect(added.status, JSON.stringify(added.body)).toBe(200);
        expect(Object.getOwnPropertyDescriptor(added.body.data, '__proto__')?.value).toBe('p');
        expect(added.body.data.constructor).toBe('c');
        await unchanged(async () => {
          for (const ops of [
            [{ op: 'add', path: '/__proto__/x', value: 1 }],
            [{ op: 'add', path: '/constructor/prototype/x', value: 1 }],
            [{ op: 'replace', path: '/metadata/__proto__', value: {} }],
            [{ op: 'remove', path: '/data/toString' }],
            [{ op: 'test', path: '/data/hasOwnProperty', value: 'x' }],
            [{ op: 'copy', from: '/constructor', path: '/data/x' }],
          ]) {
            expectStatus(await send('PATCH', `${CM}/proto-json`, ops, JSON_PATCH), 422, 'Invalid');
          }
        });
        expect(({} as Record<string, unknown>)['x']).toBeUndefined();
      });

      it('applies them server-side as data, tracks them in managedFields and removes them when the manager drops them', async () => {
        const yaml = (extra: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: proto-apply\n  labels:\n    constructor: x\ndata:\n  a: "1"\n${extra}`;
        const applied = await send('PATCH', `${CM}/proto-apply?fieldManager=m`, yaml('  __proto__: p\n  constructor: c\n  toString: t\n  hasOwnProperty: h\n'), APPLY);
        expect(applied.status, JSON.stringify(applied.body)).toBe(201);
        expectHostileData(applied.body.data);
        const fields = applied.body.metadata.managedFields[0].fieldsV1;
        expect(Object.keys(fields['f:data']).sort()).toEqual(['f:__proto__', 'f:a', 'f:constructor', 'f:hasOwnProperty', 'f:toString']);
        const again = await send('PATCH', `${CM}/proto-apply?fieldManager=m`, yaml(''), APPLY);
        expect(again.status, JSON.stringify(again.body)).toBe(200);
        expect(again.body.data).toEqual({ a: '1' });
        expect(again.body.metadata.labels).toEqual({ constructor: 'x' });
      });

      it('keeps them as keys of a client-sent managedFields entry through later writes, never reaching a prototype', async () => {
        const created = (await s.call('POST', CM, cm('proto-managed'))).body;
        const fieldsV1 = JSON.parse('{"f:data":{"__proto__":{"f:polluted":{}},"constructor":{".":{},"f:x":{}}},"f:metadata":{"f:labels":{"__proto__":{}}}}');
        const put = await s.call('PUT', `${CM}/proto-managed`, {
          ...created,
          metadata: { ...created.metadata, managedFields: [{ manager: 'hand', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1 }] },
        });
        expect(put.status, JSON.stringify(put.body)).toBe(200);
        for (const manager of ['other', 'third']) {
          const res = await send('PATCH', `${CM}/proto-managed?fieldManager=${manager}`, { data: { [manager]: 'v' } }, MERGE);
          expect(res.status, JSON.stringify(res.body)).toBe(200);
        }
        const applied = await send('PATCH', `${CM}/proto-managed?fieldManager=applier&force=true`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: proto-managed\ndata:\n  a: "2"\n', APPLY);
        expect(applied.status, JSON.stringify(applied.body)).toBe(200);
        const probe = {} as Record<string, unknown>;
        expect(probe['f:polluted']).toBeUndefined();
        expect(probe['.']).toBeUndefined();
        expect(probe['f:x']).toBeUndefined();
      });

      it('decodes them as data from YAML and CBOR bodies', async () => {
        const yaml = await send('POST', CM, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: proto-yaml\ndata:\n  __proto__: p\n  constructor: c\n  toString: t\n', 'application/yaml');
        expect(yaml.status, JSON.stringify(yaml.body)).toBe(201);
        expect(Object.getOwnPropertyDescriptor(yaml.body.data, '__proto__')?.value).toBe('p');
        const object = JSON.parse(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"proto-cbor"},"data":${hostileData}}`);
        const res = await s.call('POST', CM, undefined, { headers: { 'content-type': 'application/cbor' }, payload: Buffer.from(encodeCbor(object)) });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        expectHostileData((await s.call('GET', `${CM}/proto-cbor`)).body.data);
      });
    });

    describe('JSON patch move into its own child (issue #29, 5)', () => {
      it('is a 422 Invalid that changes nothing', async () => {
        await s.call('POST', CM, cm('move-child'));
        for (const ops of [
          [{ op: 'move', from: '/metadata', path: '/metadata/x' }],
          [{ op: 'move', from: '/data', path: '/data/a/b' }],
        ]) {
          const res = await unchanged(() => send('PATCH', `${CM}/move-child`, ops, JSON_PATCH));
          expectStatus(res, 422, 'Invalid');
          expect(res.body.message).toContain('its own child');
        }
        const moved = await send('PATCH', `${CM}/move-child`, [{ op: 'move', from: '/data/a', path: '/data/b' }], JSON_PATCH);
        expect(moved.body.data).toEqual({ b: '1' });
      });
    });

    describe('what Kubernetes refuses (issue #29, 7)', () => {
      it('answers a create or update in a patch media type, or a malformed Content-Type, with a 415', async () => {
        for (const type of [JSON_PATCH, APPLY, MERGE, STRATEGIC, 'application/json;;;', 'application/json; charset', 'application/json;=x', 'text/plain']) {
          await unchanged(async () => {
            expectStatus(await send('POST', CM, cm('wrong-type'), type), 415, 'UnsupportedMediaType');
            expectStatus(await send('PUT', `${CM}/keep-1`, cm('keep-1'), type), 415, 'UnsupportedMediaType');
          });
        }
        expect((await s.call('GET', `${CM}/wrong-type`)).status).toBe(404);
        expect((await send('POST', CM, cm('right-type'), 'application/json; charset=utf-8')).status).toBe(201);
        expect((await send('POST', CM, cm('right-type-2'), 'application/json;')).status).toBe(201);
      });

      it('answers an apply configuration without apiVersion, kind or name with a 400', async () => {
        for (const body of ['kind: ConfigMap\n', 'apiVersion: v1\nkind: ConfigMap\n', 'apiVersion: v1\nmetadata:\n  name: apply-partial\n', 'kind: ConfigMap\nmetadata:\n  name: apply-partial\n']) {
          const res = await unchanged(() => send('PATCH', `${CM}/apply-partial?fieldManager=m`, body, APPLY));
          expectStatus(res, 400, 'BadRequest');
        }
        expect((await s.call('GET', `${CM}/apply-partial`)).status).toBe(404);
      });

      it('refuses a strategic merge patch that deletes the whole object, and malformed $retainKeys and $setElementOrder', async () => {
        const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'smp-delete', labels: { keep: 'me' } }, data: { k: 'dg==' } };
        const created = await s.call('POST', SECRETS, secret);
        expect(created.status).toBe(201);
        await unchanged(async () => {
          for (const patch of [
            { $patch: 'delete' },
            { $retainKeys: [1] },
            { $retainKeys: 'data' },
            { 'metadata': { $retainKeys: [{}] } },
            { '$setElementOrder/metadata': [1] },
            { '$setElementOrder/data': ['k'] },
            { metadata: { '$setElementOrder/finalizers': [{ a: 1 }] } },
            { metadata: { '$deleteFromPrimitiveList/finalizers': [{}] } },
          ]) {
            expectStatus(await send('PATCH', `${SECRETS}/smp-delete`, patch, STRATEGIC), 400, 'BadRequest');
          }
        });
        const got = await s.call('GET', `${SECRETS}/smp-delete`);
        expect(got.body.data).toEqual({ k: 'dg==' });
        expect(got.body.metadata.labels).toEqual({ keep: 'me' });
        expect(got.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
      });

      it('still takes well-formed $setElementOrder and $retainKeys directives', async () => {
        const deployment = {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'smp-order' },
          spec: {
            selector: { matchLabels: { app: 'o' } },
            template: { metadata: { labels: { app: 'o' } }, spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } },
          },
        };
        expect((await s.call('POST', DEPLOY, deployment)).status).toBe(201);
        const res = await send('PATCH', `${DEPLOY}/smp-order`, { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [{ name: 'a', image: 'z' }] } } } }, STRATEGIC);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.spec.template.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`)).toEqual(['b=y', 'a=z']);
        const bad = await unchanged(() => send('PATCH', `${DEPLOY}/smp-order`, { spec: { template: { spec: { '$setElementOrder/containers': ['a'] } } } }, STRATEGIC));
        expectStatus(bad, 400, 'BadRequest');
      });

      it('answers a > or < label selector operand past 64 bits with a 400, and compares within 64 bits exactly', async () => {
        for (const selector of ['a>99999999999999999999999', 'a<-9223372036854775809', 'a>9223372036854775808', 'a>1.5', 'a>0x10']) {
          expectStatus(await s.call('GET', `${CM}?labelSelector=${encodeURIComponent(selector)}`), 400, 'BadRequest');
        }
        await s.call('POST', CM, { ...cm('big-label'), metadata: { name: 'big-label', labels: { n: '9007199254740993' } } });
        const above = await s.call('GET', `${CM}?labelSelector=${encodeURIComponent('n>9007199254740992')}`);
        expect(above.status).toBe(200);
        expect(above.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['big-label']);
        const max = await s.call('GET', `${CM}?labelSelector=${encodeURIComponent('n<9223372036854775807')}`);
        expect(max.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['big-label']);
      });
    });

    describe('boolean parameters as strconv.ParseBool reads them (issue #27, 1)', () => {
      const TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'];
      const FALSE = ['0', 'f', 'F', 'FALSE', 'false', 'False'];

      it('takes every spelling of pretty on get, list and writes; anything else is a 400', async () => {
        for (const value of TRUE) {
          const list = await s.call('GET', `${CM}?pretty=${value}`, undefined, { headers: { accept: 'application/json' } });
          expect(list.status, value).toBe(200);
          const get = await s.call('GET', `${CM}/keep-1?pretty=${value}`);
          expect(get.status, value).toBe(200);
        }
        for (const value of FALSE) expect((await s.call('GET', `${CM}?pretty=${value}`)).status, value).toBe(200);
        const text = await s.app.inject({ method: 'GET', url: `${CM}/keep-1?pretty=True`, headers: { authorization: 'Bearer test-admin-token' } });
        expect(text.body).toContain('\n  "kind"');
        for (const value of ['yes', 'tRUE', '2', 'on']) {
          expectStatus(await s.call('GET', `${CM}?pretty=${value}`), 400, 'BadRequest');
          await unchanged(async () => expectStatus(await s.call('POST', `${CM}?pretty=${value}`, cm('pretty-bad')), 400, 'BadRequest'));
        }
      });

      it('watches with watch=True (and every other true spelling), lists with a false one, refuses others', async () => {
        for (const value of TRUE) {
          const res = await s.call('GET', `${CM}?watch=${value}&timeoutSeconds=1&allowWatchBookmarks=True&fieldSelector=metadata.name%3Dkeep-1`);
          expect(res.status, value).toBe(200);
          expect(textOf(res)).toContain('"type":"ADDED"');
        }
        for (const value of FALSE) {
          const res = await s.call('GET', `${CM}?watch=${value}`);
          expect(res.body.kind, value).toBe('ConfigMapList');
        }
        for (const value of ['yes', 'truee']) {
          expectStatus(await s.call('GET', `${CM}?watch=${value}`), 400, 'BadRequest');
          expectStatus(await s.call('GET', `${CM}?watch=true&timeoutSeconds=1&allowWatchBookmarks=${value}`), 400, 'BadRequest');
        }
      });

      it('reads sendInitialEvents=True as true', async () => {
        const res = await s.call('GET', `${CM}?watch=True&sendInitialEvents=True&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=T&timeoutSeconds=1&fieldSelector=metadata.name%3Dkeep-1`);
        expect(res.status).toBe(200);
        expect(textOf(res)).toContain('"type":"ADDED"');
        expect(textOf(res)).toContain('/initial-events-end');
      });

      it('takes force=True on apply and orphanDependents=False on delete; refuses force=yes', async () => {
        const yaml = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: force-apply\ndata:\n  a: "${value}"\n`;
        expect((await send('PATCH', `${CM}/force-apply?fieldManager=one`, yaml('1'), APPLY)).status).toBe(201);
        expect((await send('PATCH', `${CM}/force-apply?fieldManager=two`, yaml('2'), APPLY)).status).toBe(409);
        await unchanged(async () => expectStatus(await send('PATCH', `${CM}/force-apply?fieldManager=two&force=yes`, yaml('2'), APPLY), 400, 'BadRequest'));
        const forced = await send('PATCH', `${CM}/force-apply?fieldManager=two&force=True`, yaml('2'), APPLY);
        expect(forced.status).toBe(200);
        expect(forced.body.data).toEqual({ a: '2' });
        await unchanged(async () => expectStatus(await s.call('DELETE', `${CM}/force-apply?orphanDependents=nope`), 400, 'BadRequest'));
        const deleted = await s.call('DELETE', `${CM}/force-apply?orphanDependents=False`);
        expect(deleted.status).toBe(200);
        expect((await s.call('GET', `${CM}/force-apply`)).status).toBe(404);
      });
    });
  });
}
