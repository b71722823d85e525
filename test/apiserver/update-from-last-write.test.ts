// An update starts from the version the server last wrote of the object (a guess, src/apiserver/
// written-objects.ts), not from a store read. These tests change the object behind that server's
// back, through a second API server on the same store, and check that every write through the
// first still sees the store's version: nothing another writer did is lost, a precondition is
// judged against the store, a write that would change nothing on the guess is written, and an
// object deleted or made anew is found as it is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecondServer, startTestServer, type BackendName, type CallResult, type TestServer } from './harness.js';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const PODS = '/api/v1/namespaces/default/pods';
const MERGE = { headers: { 'content-type': 'application/merge-patch+json' } };
const JSON_PATCH = { headers: { 'content-type': 'application/json-patch+json' } };

for (const backend of ['memory', 'sqlite'] satisfies BackendName[]) {
  describe(`updates after another server's write, on the ${backend} store`, () => {
    let a: TestServer;
    let other: Awaited<ReturnType<typeof startSecondServer>>;
/** The second server: writes the first one has not seen through its own requests. */
    const b = (method: string, url: string, body?: unknown, contentType?: string): Promise<CallResult> => other.call(method, url, body, contentType);
    const ok = (answer: CallResult, status = 200) => {
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      return answer.body;
    };
    const configMap = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

    beforeAll(async () => {
      a = await startTestServer(backend);
      other = await startSecondServer(a.store);
    });
    afterAll(async () => {
      await other.close();
      await a.close();
    });

    it('a PUT with the store version succeeds, and one with the version the server last wrote is a 409', async () => {
      const created = ok(await a.call('POST', CONFIGMAPS, configMap('put', { k: '1' })), 201);
      const mine = ok(await a.call('PUT', `${CONFIGMAPS}/put`, { ...created, data: { k: '2' } }));
      const theirs = ok(await b('PUT', `${CONFIGMAPS}/put`, { ...mine, data: { k: '3' } }));
      const stale = await a.call('PUT', `${CONFIGMAPS}/put`, { ...mine, data: { k: '4' } });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Conflict', code: 409 });
      expect(ok(await a.call('GET', `${CONFIGMAPS}/put`)).data).toEqual({ k: '3' });
      const next = ok(await a.call('PUT', `${CONFIGMAPS}/put`, { ...theirs, data: { k: '5' } }));
      expect(next.data).toEqual({ k: '5' });
      expect(Number(next.metadata.resourceVersion)).toBeGreaterThan(Number(theirs.metadata.resourceVersion));
    });

    it('a merge patch applies to the store version: the other write is kept', async () => {
      ok(await a.call('POST', CONFIGMAPS, configMap('merge', { mine: '1' })), 201);
      ok(await a.call('PATCH', `${CONFIGMAPS}/merge`, { data: { mine: '2' } }, MERGE));
      ok(await b('PATCH', `${CONFIGMAPS}/merge`, { data: { theirs: 'x' } }, 'application/merge-patch+json'));
      const patched = ok(await a.call('PATCH', `${CONFIGMAPS}/merge`, { data: { mine: '3' } }, MERGE));
      expect(patched.data).toEqual({ mine: '3', theirs: 'x' });
      expect(ok(await b('GET', `${CONFIGMAPS}/merge`)).data).toEqual({ mine: '3', theirs: 'x' });
    });

    it('a conditional patch is judged against the store version', async () => {
      ok(await a.call('POST', CONFIGMAPS, configMap('cond', { k: '1' })), 201);
      const mine = ok(await a.call('PATCH', `${CONFIGMAPS}/cond`, { data: { k: '2' } }, MERGE));
      const theirs = ok(await b('PATCH', `${CONFIGMAPS}/cond`, { data: { k: '3' } }, 'application/merge-patch+json'));
      const stale = await a.call('PATCH', `${CONFIGMAPS}/cond`, { metadata: { resourceVersion: mine.metadata.resourceVersion }, data: { k: '4' } }, MERGE);
      expect(stale.status).toBe(409);
      const staleTest = await a.call('PATCH', `${CONFIGMAPS}/cond`, [{ op: 'test', path: '/metadata/resourceVersion', value: mine.metadata.resourceVersion }, { op: 'replace', path: '/data/k', value: '4' }], JSON_PATCH);
      expect(staleTest.status).toBe(409);
      const current = ok(await a.call('PATCH', `${CONFIGMAPS}/cond`, { metadata: { resourceVersion: theirs.metadata.resourceVersion }, data: { k: '5' } }, MERGE));
      expect(current.data).toEqual({ k: '5' });
      const tested = ok(await a.call('PATCH', `${CONFIGMAPS}/cond`, [{ op: 'test', path: '/data/k', value: '5' }, { op: 'replace', path: '/data/k', value: '6' }], JSON_PATCH));
      expect(tested.data).toEqual({ k: '6' });
    });

    it('a JSON patch whose test fails on the guess but holds in the store is applied', async () => {
      ok(await a.call('POST', CONFIGMAPS, configMap('jtest', { k: 'a' })), 201);
      ok(await b('PATCH', `${CONFIGMAPS}/jtest`, { data: { k: 'b' } }, 'application/merge-patch+json'));
      const patched = ok(await a.call('PATCH', `${CONFIGMAPS}/jtest`, [{ op: 'test', path: '/data/k', value: 'b' }, { op: 'add', path: '/data/n', value: '1' }], JSON_PATCH));
      expect(patched.data).toEqual({ k: 'b', n: '1' });
    });

    it('a write that changes nothing on the guess but something in the store is written', async () => {
      ok(await a.call('POST', CONFIGMAPS, configMap('noop', { k: '1' })), 201);
      const theirs = ok(await b('PATCH', `${CONFIGMAPS}/noop`, { data: { k: '2' } }, 'application/merge-patch+json'));
      const patched = ok(await a.call('PATCH', `${CONFIGMAPS}/noop`, { data: { k: '1' } }, MERGE));
      expect(patched.data).toEqual({ k: '1' });
      expect(Number(patched.metadata.resourceVersion)).toBeGreaterThan(Number(theirs.metadata.resourceVersion));
      expect(ok(await b('GET', `${CONFIGMAPS}/noop`)).data).toEqual({ k: '1' });
      // And one that changes nothing at all still answers the stored object without a new version.
      const again = ok(await a.call('PATCH', `${CONFIGMAPS}/noop`, { data: { k: '1' } }, MERGE));
      expect(again.metadata.resourceVersion).toBe(patched.metadata.resourceVersion);
    });

    it('an object deleted by the other server is not found; one made anew is patched as it is', async () => {
      ok(await a.call('POST', CONFIGMAPS, configMap('gone', { k: '1' })), 201);
      ok(await b('DELETE', `${CONFIGMAPS}/gone`));
      const missing = await a.call('PATCH', `${CONFIGMAPS}/gone`, { data: { k: '2' } }, MERGE);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });

      const first = ok(await a.call('POST', CONFIGMAPS, configMap('anew', { old: '1' })), 201);
      ok(await b('DELETE', `${CONFIGMAPS}/anew`));
      const second = ok(await b('POST', CONFIGMAPS, configMap('anew', { fresh: '1' })), 201);
      const patched = ok(await a.call('PATCH', `${CONFIGMAPS}/anew`, { data: { more: '1' } }, MERGE));
      expect(patched.metadata.uid).toBe(second.metadata.uid);
      expect(patched.metadata.uid).not.toBe(first.metadata.uid);
      expect(patched.data).toEqual({ fresh: '1', more: '1' });
    });

    it('a PUT of an object the other server deleted creates it', async () => {
      const created = ok(await a.call('POST', CONFIGMAPS, configMap('recreate', { k: '1' })), 201);
      ok(await b('DELETE', `${CONFIGMAPS}/recreate`));
      const { resourceVersion: _rv, uid: _uid, creationTimestamp: _at, managedFields: _mf, ...metadata } = created.metadata;
      const made = ok(await a.call('PUT', `${CONFIGMAPS}/recreate`, { ...created, metadata, data: { k: '2' } }), 201);
      expect(made.metadata.uid).not.toBe(created.metadata.uid);
      expect(made.data).toEqual({ k: '2' });
    });

    it("a status patch keeps the other server's status change and managed fields", async () => {
      const account = await a.call('POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
      expect([201, 409]).toContain(account.status);
      ok(await a.call('POST', PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }), 201);
      ok(await a.call('PATCH', `${PODS}/p/status`, { status: { podIP: '10.0.0.1' } }, MERGE));
      ok(await b('PATCH', `${PODS}/p/status`, { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, 'application/merge-patch+json'));
      const patched = ok(await a.call('PATCH', `${PODS}/p/status`, { status: { hostIP: '10.0.1.1' } }, MERGE));
      expect(patched.status).toMatchObject({ podIP: '10.0.0.1', hostIP: '10.0.1.1', conditions: [{ type: 'Ready', status: 'True' }] });
      const stored = ok(await b('GET', `${PODS}/p`));
      expect(stored.status).toMatchObject({ podIP: '10.0.0.1', hostIP: '10.0.1.1', conditions: [{ type: 'Ready', status: 'True' }] });
      expect(stored.metadata.managedFields).toEqual(patched.metadata.managedFields);
    });
  });
}
