import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStream, openWatch, type WatchStream } from '../support/watch-client.js';
import { TOKEN, startTestServer, type BackendName, type CallResult, type TestServer } from './harness.js';

/*
 * `--watch-cache-events=false` (`cacheEvents: false`): the watch cache keeps no Events, as
 * kube-apiserver keeps none. Their gets, lists and the start of their watches read the store;
 * their watches then follow the cache's history and live stream. Every answer must be the one a
 * cached type gives: these cases are the read and watch semantics, on each store.
 */

const EVENTS = '/api/v1/namespaces/default/events';

const event = (name: string, pod: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', namespace: 'default', name: pod },
  reason: 'Started',
  message: `Started ${pod}`,
  type: 'Normal',
  count: 1,
  source: { component: 'test' },
});

const names = (body: { items: { metadata: { name: string } }[] }) => body.items.map((i) => i.metadata.name);

for (const backend of ['memory', 'sqlite', 'etcd'] satisfies BackendName[]) {
  describe(`Events kept out of the watch cache, on the ${backend} store`, () => {
    let s: TestServer;
    const ok = (answer: CallResult, status = 200) => {
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      return answer.body;
    };
    /** Server s's storage reads of Events so far (a `get` or a `list` the store answered). */
    const storeReads = async (): Promise<number> => {
      const text = (await s.call('GET', '/metrics')).body as string;
      let reads = 0;
      for (const match of text.matchAll(/^etcd_request_duration_seconds_count\{operation="(get|list)",type="events"\} (\d+)$/gm)) reads += Number(match[2]);
      return reads;
    };

    beforeAll(async () => {
      s = await startTestServer(backend, { listen: true, cacheEvents: false });
    });
    afterAll(async () => {
      await s?.close();
    });

    it('gets, lists and pages Events from the store, with selectors, now and at an exact revision', async () => {
      const rvs: number[] = [];
      for (let i = 0; i < 5; i++) rvs.push(Number(ok(await s.call('POST', EVENTS, event(`e${i}`, `p${i}`)), 201).metadata.resourceVersion));
      const reads = await storeReads();
      const one = ok(await s.call('GET', `${EVENTS}/e1`));
      expect([one.metadata.name, one.metadata.resourceVersion]).toEqual(['e1', String(rvs[1])]);
      // Read from the store, not a cache (with a cache of Events an in-process store is not asked).
      expect(await storeReads()).toBeGreaterThan(reads);
      expect(ok(await s.call('GET', `${EVENTS}/nothing`), 404).reason).toBe('NotFound');

      const all = ok(await s.call('GET', EVENTS));
      expect(names(all)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
      expect(Number(all.metadata.resourceVersion)).toBeGreaterThanOrEqual(rvs[4]!);
      expect(names(ok(await s.call('GET', `${EVENTS}?resourceVersion=0`)))).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
      expect(names(ok(await s.call('GET', `${EVENTS}?fieldSelector=involvedObject.name%3Dp2`)))).toEqual(['e2']);
      expect(names(ok(await s.call('GET', `${EVENTS}?resourceVersion=${rvs[2]}&resourceVersionMatch=Exact`)))).toEqual(['e0', 'e1', 'e2']);

      const first = ok(await s.call('GET', `${EVENTS}?limit=2`));
      expect(names(first)).toEqual(['e0', 'e1']);
      expect(first.metadata.remainingItemCount).toBe(3);
      const second = ok(await s.call('GET', `${EVENTS}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`));
      // A write between pages is not in the snapshot the pages show.
      ok(await s.call('POST', EVENTS, event('e5', 'p5')), 201);
      const third = ok(await s.call('GET', `${EVENTS}?limit=2&continue=${encodeURIComponent(second.metadata.continue)}`));
      expect([names(second), names(third)]).toEqual([['e2', 'e3'], ['e4']]);
      expect(third.metadata.continue).toBeUndefined();
      expect(new Set([first, second, third].map((p) => p.metadata.resourceVersion)).size).toBe(1);
    });

    it('watches Events: the current state from the store, then live; from a past revision; a watch list ends its state with the bookmark', async () => {
      const path = '/api/v1/namespaces/watched/events';
      ok(await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched' } }), 201);
      const at = (n: string, pod: string) => s.call('POST', path, { ...event(n, pod), metadata: { name: n, namespace: 'watched' }, involvedObject: { kind: 'Pod', namespace: 'watched', name: pod } });
      const a = ok(await at('a', 'pa'), 201);
      ok(await at('b', 'pb'), 201);
      const inNamespace = async (query: string): Promise<WatchStream> => {
        const w = await openWatch(`${s.url}${path}?${query}`, { token: TOKEN });
        if (!isStream(w)) throw new Error(`the watch was refused: ${w.status} ${JSON.stringify(w.body)}`);
        return w;
      };
      const fromNow = await inNamespace('watch=1');
      const fromA = await inNamespace(`watch=1&resourceVersion=${a.metadata.resourceVersion}`);
      const list = await inNamespace('watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true');
      const onePod = await inNamespace('watch=1&fieldSelector=involvedObject.name%3Dpb');
      try {
        expect((await fromNow.next(2)).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED a', 'ADDED b']);
        const initial = await list.next(3);
        expect(initial.slice(0, 2).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED a', 'ADDED b']);
        expect(initial[2]!.type).toBe('BOOKMARK');
        expect(initial[2]!.object.metadata.annotations).toEqual({ 'svc.io/initial-events-end': 'true' });
        expect((await onePod.next(1)).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED b']);

        const c = ok(await at('c', 'pc'), 201);
        ok(await s.call('DELETE', `${path}/a`));
        const fromNowLive = await fromNow.next(2);
        const deletedAt = fromNowLive[1]!.object.metadata.resourceVersion as string;
        // The DELETED carries a's last state at the delete's own, newer, resourceVersion.
        expect(Number(deletedAt)).toBeGreaterThan(Number(c.metadata.resourceVersion));
        expect(fromNowLive[1]!.object.message).toBe('Started pa');
        const live = [`ADDED c ${c.metadata.resourceVersion}`, `DELETED a ${deletedAt}`];
        const seen = (events: { type: string; object: { metadata: { name: string; resourceVersion: string } } }[]) =>
          events.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`);
        expect(seen(fromNowLive)).toEqual(live);
        expect(seen(await fromA.next(3)).slice(1)).toEqual(live);
        expect(seen((await list.until((e) => e.type === 'DELETED')).filter((e) => e.type !== 'BOOKMARK'))).toEqual(live);
        // pb's watch heard nothing of a or c.
        ok(await at('d', 'pb'), 201);
        expect((await onePod.next(1)).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED d']);
      } finally {
        for (const w of [fromNow, fromA, list, onePod]) w.abort();
      }
    });
  });
}
