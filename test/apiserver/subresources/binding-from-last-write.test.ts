// A binding starts from the version this server last wrote of the pod (its create, as a rule), a
// guess the store's compare-and-swap checks, and keeps what it wrote as the next write's start:
// the node's first status patch. These tests count the pod's storage operations for that path
// (the server's etcd_request_duration_seconds, which times every store call) and change the pod
// behind the server's back, through a second API server on the same store, to check that a
// binding still judges the store's version.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecondServer, startTestServer, type BackendName, type CallResult, type TestServer } from '../harness.js';

const PODS = '/api/v1/namespaces/default/pods';
const MERGE = { headers: { 'content-type': 'application/merge-patch+json' } };
const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
const binding = (name: string, node: string, uid?: string) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, ...(uid ? { uid } : {}) }, target: { kind: 'Node', name: node } });
const running = { status: { phase: 'Running', podIP: '10.244.0.9', podIPs: [{ ip: '10.244.0.9' }] } };

for (const backend of ['memory', 'sqlite'] satisfies BackendName[]) {
  describe(`a binding after this server's create, on the ${backend} store`, () => {
    let a: TestServer;
    let other: Awaited<ReturnType<typeof startSecondServer>>;
    const b = (method: string, url: string, body?: unknown, contentType?: string): Promise<CallResult> => other.call(method, url, body, contentType);
    const ok = (answer: CallResult, status = 200) => {
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      return answer.body;
    };
    /** The pods' storage operations of server a so far, by operation. */
    const podStorage = async (): Promise<Record<string, number>> => {
      const text = (await a.call('GET', '/metrics')).body as string;
      const counts: Record<string, number> = {};
      for (const match of text.matchAll(/^etcd_request_duration_seconds_count\{operation="(\w+)",type="pods"\} (\d+)$/gm)) counts[match[1]!] = Number(match[2]);
      return counts;
    };

    beforeAll(async () => {
      a = await startTestServer(backend);
      other = await startSecondServer(a.store);
    });
    afterAll(async () => {
      await other.close();
      await a.close();
    });

    it('create, binding and the status patch: the pod is read from the store never, written once each', async () => {
      const start = await podStorage();
      const created = ok(await a.call('POST', PODS, pod('lifecycle')), 201);
      ok(await a.call('POST', `${PODS}/lifecycle/binding`, binding('lifecycle', 'node-1')), 201);
      const patched = ok(await a.call('PATCH', `${PODS}/lifecycle/status`, running, MERGE));
      const end = await podStorage();
      const delta = (operation: string) => (end[operation] ?? 0) - (start[operation] ?? 0);
      expect({ create: delta('create'), get: delta('get'), update: delta('update') }).toEqual({ create: 1, get: 0, update: 2 });
      // The status patch started from the bound version: nothing of the binding is lost.
      expect(patched.spec.nodeName).toBe('node-1');
      expect(patched.status.phase).toBe('Running');
      expect(patched.status.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'True' })]);
      expect(patched.metadata.uid).toBe(created.metadata.uid);
      expect(ok(await b('GET', `${PODS}/lifecycle`))).toEqual(patched);
    });

    it('a pod changed by another server since the create is bound from the store: the other change is kept', async () => {
      ok(await a.call('POST', PODS, pod('changed')), 201);
      ok(await b('PATCH', `${PODS}/changed`, { metadata: { labels: { theirs: 'x' } } }, 'application/merge-patch+json'));
      ok(await a.call('POST', `${PODS}/changed/binding`, binding('changed', 'node-2')), 201);
      const stored = ok(await b('GET', `${PODS}/changed`));
      expect(stored.metadata.labels).toEqual({ theirs: 'x' });
      expect(stored.spec.nodeName).toBe('node-2');
    });

    it('a pod another server bound first is a 409 naming its node', async () => {
      ok(await a.call('POST', PODS, pod('taken')), 201);
      ok(await b('POST', `${PODS}/taken/binding`, binding('taken', 'node-b')), 201);
      const res = await a.call('POST', `${PODS}/taken/binding`, binding('taken', 'node-a'));
      expect(res.body).toMatchObject({ code: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on pods/binding "taken": pod taken is already assigned to node "node-b"' });
      expect(ok(await b('GET', `${PODS}/taken`)).spec.nodeName).toBe('node-b');
    });

    it('a pod deleted and made again by another server is bound by the new uid, refused by the old one', async () => {
      const old = ok(await a.call('POST', PODS, pod('again')), 201);
      ok(await b('DELETE', `${PODS}/again?gracePeriodSeconds=0`));
      const made = ok(await b('POST', PODS, pod('again')), 201);
      // Server a's last write of the pod names the old uid: the new one is judged against the store.
      ok(await a.call('POST', `${PODS}/again/binding`, binding('again', 'node-3', made.metadata.uid)), 201);
      const stale = await a.call('POST', `${PODS}/again/binding`, binding('again', 'node-3', old.metadata.uid));
      expect(stale.body).toMatchObject({ code: 409, reason: 'Conflict' });
      expect(stale.body.message).toContain(`UID in object meta: ${made.metadata.uid}`);
      const stored = ok(await b('GET', `${PODS}/again`));
      expect(stored.metadata.uid).toBe(made.metadata.uid);
      expect(stored.spec.nodeName).toBe('node-3');
    });

    it('a pod another server deleted is a 404, and a dry run binds nothing', async () => {
      ok(await a.call('POST', PODS, pod('gone')), 201);
      ok(await b('DELETE', `${PODS}/gone?gracePeriodSeconds=0`));
      expect((await a.call('POST', `${PODS}/gone/binding`, binding('gone', 'node-4'))).status).toBe(404);
      ok(await a.call('POST', PODS, pod('dry')), 201);
      ok(await a.call('POST', `${PODS}/dry/binding?dryRun=All`, binding('dry', 'node-5')), 201);
      expect(ok(await b('GET', `${PODS}/dry`)).spec.nodeName).toBeUndefined();
    });
  });
}
