/**
 * Reads over HTTP, per backend: the get and list resourceVersion tables, paging and continue
 * tokens, and watches (a real listening server: inject cannot carry a stream). Timings are
 * shortened through buildApp options; no test asserts how long anything took, only what arrived
 * and in which order.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/api/index.js';
import { buildApp } from '../../src/apiserver/index.js';
import { CONTINUE_EXPIRED_MESSAGE, ContinueTokens } from '../../src/apiserver/continue-token.js';
import { collectionPrefix } from '../../src/apiserver/object-keys.js';
import type { WatchEvent } from '../support/watch-client.js';
import { USER, startTestServer, type BackendName, type CallResult, type TestServer } from './harness.js';
import { Client, brief, cm, cmPath, expectStatus, names, rvOf, socketBufferBytes, versions } from './read-client.js';
import { seededRandom as prng } from '../support/prng.js';

const KEY = randomBytes(32);
const CONFIGMAPS = builtinRegistry().lookup('', 'v1', 'configmaps')!;
const FAST = { listen: true, bookmarkIntervalMs: 50, tooLargeResourceVersionWaitMs: 200, continueTokenKey: KEY } as const;

export function watchSuite(backend: BackendName) {
  describe(`reads and watches over HTTP on the ${backend} store`, () => {
    let s: TestServer;
    let c: Client;
    beforeAll(async () => {
      s = await startTestServer(backend, FAST);
      c = new Client(s);
    });
    afterEach(() => c.closeStreams());
    afterAll(async () => {
      await s?.close();
    });

    describe('get', () => {
      let ns: string;
      let latest: any;
      beforeAll(async () => {
        ns = await c.namespace('get');
        const created = await c.create(ns, 'a');
        latest = await c.update(ns, created, { data: { v: '2' } });
      });

      it('with resourceVersion unset sees a write made just before', async () => {
        const before = (await s.call('GET', `${cmPath(ns)}/a`)).body;
        latest = await c.update(ns, before, { data: { v: 'just-before' } });
        const got = await s.call('GET', `${cmPath(ns)}/a`);
        expect(got.status).toBe(200);
        expect(got.body.data).toEqual({ v: 'just-before' });
        expect(got.body.metadata.resourceVersion).toBe(latest.metadata.resourceVersion);
      });

      it('with resourceVersion "0" answers from the cache', async () => {
        await c.synced(cmPath(ns), rvOf(latest));
        const got = await s.call('GET', `${cmPath(ns)}/a?resourceVersion=0`);
        expect(got.status).toBe(200);
        expect(got.body).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: ns } });
        expect(got.body.metadata.resourceVersion).toBe(latest.metadata.resourceVersion);
      });

      it('with the current resourceVersion answers a state not older than it', async () => {
        const got = await s.call('GET', `${cmPath(ns)}/a?resourceVersion=${latest.metadata.resourceVersion}`);
        expect(got.status).toBe(200);
        expect(got.body.metadata.resourceVersion).toBe(latest.metadata.resourceVersion);
        expect(got.body.data).toEqual(latest.data);
      });

      it('with a future resourceVersion answers 504 Too large resource version with Retry-After: 1', async () => {
        const future = (await s.store.revision()) + 1000;
        await c.unchanged(async () => {
          const res = await s.call('GET', `${cmPath(ns)}/a?resourceVersion=${future}`);
          expectStatus(res, 504, 'Timeout');
          expect(res.body.message).toContain('Too large resource version');
          expect(res.body.details.causes[0].reason).toBe('ResourceVersionTooLarge');
          expect(res.headers['retry-after']).toBe('1');
        });
      });

      it('answers 400 to a resourceVersion that is not a non-negative integer', async () => {
        await c.unchanged(async () => {
          for (const bad of ['abc', '-1', '1.5', '0x10']) {
            expectStatus(await s.call('GET', `${cmPath(ns)}/a?resourceVersion=${bad}`), 400, 'BadRequest');
          }
        });
      });
    });

    describe('the list table', () => {
      let ns: string;
      let path: string;
      /** The list's resourceVersion when it held a, b, c; and those objects. */
      let old: { rv: number; items: any[] };
      /** The latest write, and the objects now (a', c, d, e). */
      let latestRv: number;
      let now: Record<string, string>;

      beforeAll(async () => {
        ns = await c.namespace('table');
        path = cmPath(ns);
        const a = await c.create(ns, 'a');
        await c.create(ns, 'b');
        await c.create(ns, 'c');
        const listed = (await c.list(path)).body;
        old = { rv: rvOf(listed), items: listed.items };
        await c.create(ns, 'd');
        await c.update(ns, a, { data: { v: '2' } });
        await c.remove(ns, 'b');
        latestRv = rvOf(await c.create(ns, 'e'));
        now = versions((await c.list(path)).body.items);
        await c.synced(path, latestRv);
      });

      const expectOld = (items: any[]) => expect(versions(items)).toEqual(versions(old.items));
      const expectNow = (items: any[]) => expect(versions(items)).toEqual(now);
      /** Pages of at most 2 items, one resourceVersion for all. */
      const expectPaged = (pages: any[]) => {
        for (const page of pages) expect(page.items.length).toBeLessThanOrEqual(2);
        expect(new Set(pages.map((p) => p.metadata.resourceVersion)).size).toBe(1);
      };
      const invalid = async (query: string) => {
        await c.unchanged(async () => expectStatus(await c.list(path, query), 400, 'BadRequest'));
      };

      // match unset, limit unset
      it('match unset, limit unset, resourceVersion unset: Most Recent', async () => {
        const res = await c.list(path);
        expect(res.status).toBe(200);
        expect(res.body.kind).toBe('ConfigMapList');
        expectNow(res.body.items);
        expect(rvOf(res.body)).toBeGreaterThanOrEqual(latestRv);
        expect(res.body.metadata.continue ?? '').toBe('');
      });
      it('match unset, limit unset, resourceVersion "0": Any', async () => {
        const res = await c.list(path, 'resourceVersion=0');
        expect(res.status).toBe(200);
        expectNow(res.body.items);
      });
      it('match unset, limit unset, resourceVersion given: Not older than', async () => {
        const res = await c.list(path, `resourceVersion=${latestRv}`);
        expect(res.status).toBe(200);
        expect(rvOf(res.body)).toBeGreaterThanOrEqual(latestRv);
        expectNow(res.body.items);
      });

      // match unset, limit=n, continue unset
      it('match unset, limit=2, resourceVersion unset: Most Recent, paged', async () => {
        const first = await c.list(path, 'limit=2');
        expect(first.status).toBe(200);
        expect(names(first.body.items)).toEqual(['a', 'c']);
        expect(first.body.metadata.continue).toBeTruthy();
        const { pages, items } = await c.pages(path, 'limit=2');
        expectPaged(pages);
        expectNow(items);
        expect(rvOf(pages[0])).toBeGreaterThanOrEqual(latestRv);
      });
      it('match unset, limit=2, resourceVersion "0": Any, paged', async () => {
        const { pages, items } = await c.pages(path, 'limit=2&resourceVersion=0');
        expectPaged(pages);
        expectNow(items);
      });
      it('match unset, limit=2, resourceVersion given: Exact', async () => {
        const { pages, items } = await c.pages(path, `limit=2&resourceVersion=${old.rv}`);
        expectPaged(pages);
        expect(rvOf(pages[0])).toBe(old.rv);
        expectOld(items);
      });

      // match unset, limit=n, continue=token
      it('match unset, limit=2, continue, resourceVersion unset: Continuation', async () => {
        const first = (await c.list(path, 'limit=2')).body;
        const next = await c.list(path, `limit=2&continue=${encodeURIComponent(first.metadata.continue)}`);
        expect(next.status).toBe(200);
        expect(next.body.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
        expect(names(next.body.items)).toEqual(['d', 'e']);
      });
      it('match unset, limit=2, continue, resourceVersion "0": Continuation', async () => {
        const first = (await c.list(path, 'limit=2')).body;
        const next = await c.list(path, `limit=2&resourceVersion=0&continue=${encodeURIComponent(first.metadata.continue)}`);
        expect(next.status).toBe(200);
        expect(next.body.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
        expect(names(next.body.items)).toEqual(['d', 'e']);
      });
      it('match unset, limit=2, continue, resourceVersion given: Invalid (400)', async () => {
        const first = (await c.list(path, 'limit=2')).body;
        await invalid(`limit=2&resourceVersion=${first.metadata.resourceVersion}&continue=${encodeURIComponent(first.metadata.continue)}`);
      });

      // Exact
      it('Exact, limit unset, resourceVersion unset: Invalid (400)', () => invalid('resourceVersionMatch=Exact'));
      it('Exact, limit unset, resourceVersion "0": Invalid (400)', () => invalid('resourceVersionMatch=Exact&resourceVersion=0'));
      it('Exact, limit unset, resourceVersion given: Exact', async () => {
        const res = await c.list(path, `resourceVersionMatch=Exact&resourceVersion=${old.rv}`);
        expect(res.status).toBe(200);
        expect(rvOf(res.body)).toBe(old.rv);
        expectOld(res.body.items);
      });
      it('Exact, limit=2, resourceVersion unset: Invalid (400)', () => invalid('resourceVersionMatch=Exact&limit=2'));
      it('Exact, limit=2, resourceVersion "0": Invalid (400)', () => invalid('resourceVersionMatch=Exact&limit=2&resourceVersion=0'));
      it('Exact, limit=2, resourceVersion given: Exact, paged', async () => {
        const { pages, items } = await c.pages(path, `resourceVersionMatch=Exact&limit=2&resourceVersion=${old.rv}`);
        expectPaged(pages);
        expect(rvOf(pages[0])).toBe(old.rv);
        expectOld(items);
      });

      // NotOlderThan
      it('NotOlderThan, limit unset, resourceVersion unset: Invalid (400)', () => invalid('resourceVersionMatch=NotOlderThan'));
      it('NotOlderThan, limit unset, resourceVersion "0": Any', async () => {
        const res = await c.list(path, 'resourceVersionMatch=NotOlderThan&resourceVersion=0');
        expect(res.status).toBe(200);
        expectNow(res.body.items);
      });
      it('NotOlderThan, limit unset, resourceVersion given: Not older than', async () => {
        const res = await c.list(path, `resourceVersionMatch=NotOlderThan&resourceVersion=${old.rv}`);
        expect(res.status).toBe(200);
        expect(rvOf(res.body)).toBeGreaterThanOrEqual(latestRv);
        expectNow(res.body.items);
      });
      it('NotOlderThan, limit=2, resourceVersion unset: Invalid (400)', () => invalid('resourceVersionMatch=NotOlderThan&limit=2'));
      it('NotOlderThan, limit=2, resourceVersion "0": Any, paged', async () => {
        const { pages, items } = await c.pages(path, 'resourceVersionMatch=NotOlderThan&limit=2&resourceVersion=0');
        expectPaged(pages);
        expectNow(items);
      });
      it('NotOlderThan, limit=2, resourceVersion given: Not older than, paged', async () => {
        const { pages, items } = await c.pages(path, `resourceVersionMatch=NotOlderThan&limit=2&resourceVersion=${latestRv}`);
        expectPaged(pages);
        expect(rvOf(pages[0])).toBeGreaterThanOrEqual(latestRv);
        expectNow(items);
      });

      it('forbids resourceVersionMatch together with continue (400)', async () => {
        const first = (await c.list(path, 'limit=2')).body;
        const token = encodeURIComponent(first.metadata.continue);
        await invalid(`limit=2&resourceVersionMatch=Exact&resourceVersion=${first.metadata.resourceVersion}&continue=${token}`);
        await invalid(`limit=2&resourceVersionMatch=NotOlderThan&resourceVersion=0&continue=${token}`);
      });
    });

    describe('list semantics and bad input', () => {
      it('Exact with an older resourceVersion answers the collection exactly as it was then', async () => {
        const ns = await c.namespace('exact');
        const path = cmPath(ns);
        const a = await c.create(ns, 'a', { v: 'a1' });
        await c.create(ns, 'b', { v: 'b1' });
        const then = (await c.list(path)).body;
        await c.create(ns, 'c', { v: 'c1' });
        await c.update(ns, a, { data: { v: 'a2' } });
        await c.remove(ns, 'b');

        const res = await c.list(path, `resourceVersionMatch=Exact&resourceVersion=${then.metadata.resourceVersion}`);
        expect(res.status).toBe(200);
        expect(res.body.metadata.resourceVersion).toBe(then.metadata.resourceVersion);
        expect(res.body.items).toEqual(then.items);
        expect(res.body.items.map((i: any) => i.data.v)).toEqual(['a1', 'b1']);
      });

      it('NotOlderThan a future resourceVersion answers 504 Too large resource version', async () => {
        const ns = await c.namespace('future');
        const future = (await s.store.revision()) + 1000;
        await c.unchanged(async () => {
          for (const query of [`resourceVersionMatch=NotOlderThan&resourceVersion=${future}`, `resourceVersion=${future}`]) {
            const res = await c.list(cmPath(ns), query);
            expectStatus(res, 504, 'Timeout');
            expect(res.body.message).toContain('Too large resource version');
            expect(res.body.details.causes[0].reason).toBe('ResourceVersionTooLarge');
            expect(res.headers['retry-after']).toBe('1');
          }
        });
      });

      const badLists: [string, string][] = [
        ['resourceVersionMatch without resourceVersion', 'resourceVersionMatch=NotOlderThan'],
        ['an unknown resourceVersionMatch', 'resourceVersionMatch=Newest&resourceVersion=5'],
        ['a non-numeric resourceVersion', 'resourceVersion=abc'],
        ['a negative resourceVersion', 'resourceVersion=-5'],
        ['a negative limit', 'limit=-1'],
        ['a non-integer limit', 'limit=1.5'],
        ['a limit that is not a number', 'limit=ten'],
        ['a garbage continue token', 'continue=garbage'],
        ['a continue token that is not base64 JSON', 'continue=bm90LWpzb24.AAAAAAAAAAAAAAAAAAAAAA'],
      ];
      for (const [what, query] of badLists) {
        it(`answers 400 to ${what} and changes nothing`, async () => {
          await c.unchanged(async () => expectStatus(await c.list(cmPath('default'), query), 400, 'BadRequest'));
        });
      }

      it('answers 400 to a continue token with one character of its payload changed', async () => {
        const ns = await c.namespace('tamper');
        for (const name of ['a', 'b', 'c']) await c.create(ns, name);
        const token: string = (await c.list(cmPath(ns), 'limit=1')).body.metadata.continue;
        expect(token).toBeTruthy();
        const at = 3;
        const swapped = token[at] === 'A' ? 'B' : 'A';
        const tampered = token.slice(0, at) + swapped + token.slice(at + 1);
        await c.unchanged(async () => {
          expectStatus(await c.list(cmPath(ns), `limit=1&continue=${encodeURIComponent(tampered)}`), 400, 'BadRequest');
        });
      });

      it("answers 400 to a continue token used on another namespace's collection, or across namespaces", async () => {
        const one = await c.namespace('tok-one');
        const two = await c.namespace('tok-two');
        for (const name of ['a', 'b', 'c']) {
          await c.create(one, name);
          await c.create(two, name);
        }
        const token = encodeURIComponent((await c.list(cmPath(one), 'limit=1')).body.metadata.continue);
        await c.unchanged(async () => {
          expectStatus(await c.list(cmPath(two), `limit=1&continue=${token}`), 400, 'BadRequest');
          expectStatus(await c.list('/api/v1/configmaps', `limit=1&continue=${token}`), 400, 'BadRequest');
        });
        expect((await c.list(cmPath(one), `limit=1&continue=${token}`)).status).toBe(200);
      });
    });

    describe('paging', () => {
      let ns: string;
      let path: string;
      beforeAll(async () => {
        ns = await c.namespace('pages');
        path = cmPath(ns);
        for (const name of ['a', 'b', 'c', 'd', 'e']) await c.create(ns, name, { v: name }, { tier: 'x' });
      });

      it('serves 5 objects in pages of 2 at one resourceVersion, with remainingItemCount 3, then 1, then none', async () => {
        const { pages, items } = await c.pages(path, 'limit=2');
        expect(pages.map((p) => names(p.items))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
        expect(pages.map((p) => p.metadata.remainingItemCount)).toEqual([3, 1, undefined]);
        expect(new Set(pages.map((p) => p.metadata.resourceVersion)).size).toBe(1);
        expect(pages[2].metadata.continue ?? '').toBe('');
        expect(names(items)).toEqual(['a', 'b', 'c', 'd', 'e']);
      });

      it('omits remainingItemCount when a label selector is used', async () => {
        const { pages, items } = await c.pages(path, 'limit=2&labelSelector=tier%3Dx');
        expect(pages.length).toBeGreaterThan(1);
        expect(pages[0].metadata.continue).toBeTruthy();
        for (const page of pages) expect(page.metadata.remainingItemCount).toBeUndefined();
        expect(names(items)).toEqual(['a', 'b', 'c', 'd', 'e']);
      });

      it('keeps later pages at the first page’s snapshot while objects are created, updated and deleted', async () => {
        const ns2 = await c.namespace('snap');
        const p2 = cmPath(ns2);
        const objects: Record<string, any> = {};
        for (const name of ['a', 'b', 'c', 'd', 'e']) objects[name] = await c.create(ns2, name, { v: '1' });
        const first = (await c.list(p2, 'limit=2')).body;
        const original = versions(Object.values(objects));

        await c.create(ns2, 'cc', { v: 'new' });
        await c.create(ns2, 'z', { v: 'new' });
        await c.update(ns2, objects['e'], { data: { v: '2' } });
        await c.update(ns2, objects['a'], { data: { v: '2' } });
        await c.remove(ns2, 'd');

        const rest: any[] = [];
        let token: string | undefined = first.metadata.continue;
        while (token) {
          const page = await c.list(p2, `limit=2&continue=${encodeURIComponent(token)}`);
          expect(page.status).toBe(200);
          expect(page.body.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
          rest.push(...page.body.items);
          token = page.body.metadata.continue || undefined;
        }
        const all = [...first.items, ...rest];
        expect(names(all)).toEqual(['a', 'b', 'c', 'd', 'e']);
        expect(versions(all)).toEqual(original);
        expect(all.every((item) => item.data.v === '1')).toBe(true);
      });

      it('answers 410 Expired to a token older than its lifetime, with a token that goes on at the newest state', async () => {
        const first = (await c.list(path, 'limit=2')).body;
        const sixMinutesAgo = Date.now() - 6 * 60_000;
        const stale = new ContinueTokens(KEY, () => sixMinutesAgo).issue(collectionPrefix(s.store, CONFIGMAPS, ns), {
          revision: rvOf(first),
          start: 'b!',
        });
        let res: CallResult | undefined;
        await c.unchanged(async () => {
          res = await c.list(path, `limit=2&continue=${encodeURIComponent(stale)}`);
        });
        expectStatus(res!, 410, 'Expired');
        expect(res!.body.message).toBe(CONTINUE_EXPIRED_MESSAGE);
        const fresh: string = res!.body.metadata.continue;
        expect(typeof fresh).toBe('string');
        expect(fresh.length).toBeGreaterThan(0);

        const next = await c.list(path, `limit=2&continue=${encodeURIComponent(fresh)}`);
        expect(next.status).toBe(200);
        expect(names(next.body.items)).toEqual(['c', 'd']);
      });
    });

    describe('watch', () => {
      it('opens with watch=1 and with watch=true, as plain JSON', async () => {
        const ns = await c.namespace('wflag');
        for (const flag of ['1', 'true']) {
          const listed = (await c.list(cmPath(ns))).body;
          const w = await c.watch(cmPath(ns), `resourceVersion=${listed.metadata.resourceVersion}`, flag);
          expect(w.headers['content-type']).toMatch(/^application\/json/);
          const created = await c.create(ns, `o-${flag}`);
          const [event] = await w.next();
          expect(brief(event!)).toEqual({ type: 'ADDED', name: `o-${flag}`, rv: rvOf(created) });
          expect(event!.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { v: '1' } });
          w.abort();
        }
        const list = await c.list(cmPath(ns), 'watch=false');
        expect(list.body.kind).toBe('ConfigMapList');
      });

      for (const [label, query] of [
        ['unset', ''],
        ['"0"', 'resourceVersion=0'],
      ] as const) {
        it(`with resourceVersion ${label} starts with ADDED for every existing object, then live events`, async () => {
          const ns = await c.namespace('winit');
          const objects = [await c.create(ns, 'a'), await c.create(ns, 'b'), await c.create(ns, 'c')];
          if (query) await c.synced(cmPath(ns), rvOf(objects[2]));
          const w = await c.watch(cmPath(ns), query);
          const initial = await w.next(3);
          expect(initial.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'ADDED']);
          expect(versions(initial.map((e) => e.object))).toEqual(versions(objects));
          const updated = await c.update(ns, objects[0], { data: { v: '2' } });
          const [live] = await w.next();
          expect(brief(live!)).toEqual({ type: 'MODIFIED', name: 'a', rv: rvOf(updated) });
        });
      }

      it("from a list's resourceVersion sends only later events: ADDED, MODIFIED, DELETED with the last state at the delete's revision", async () => {
        const ns = await c.namespace('wfrom');
        await c.create(ns, 'before');
        const listed = (await c.list(cmPath(ns))).body;
        const w = await c.watch(cmPath(ns), `resourceVersion=${listed.metadata.resourceVersion}`);
        const created = await c.create(ns, 'x', { v: '1' });
        const updated = await c.update(ns, created, { data: { v: '2' } });
        const deletedAt = await c.remove(ns, 'x');
        const events = await w.next(3);
        expect(events.map(brief)).toEqual([
          { type: 'ADDED', name: 'x', rv: rvOf(created) },
          { type: 'MODIFIED', name: 'x', rv: rvOf(updated) },
          { type: 'DELETED', name: 'x', rv: deletedAt },
        ]);
        expect(deletedAt).toBeGreaterThan(rvOf(updated));
        const deleted = events[2]!.object;
        expect(deleted.data).toEqual({ v: '2' });
        expect(deleted.metadata.uid).toBe(created.metadata.uid);
        expect(deleted).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
      });

      it('scoped to a namespace sees only that namespace; across namespaces sees both', async () => {
        const one = await c.namespace('wns-one');
        const two = await c.namespace('wns-two');
        const rv = (await c.list('/api/v1/configmaps')).body.metadata.resourceVersion;
        const scoped = await c.watch(cmPath(one), `resourceVersion=${rv}`);
        const all = await c.watch('/api/v1/configmaps', `resourceVersion=${rv}`);
        const inTwo = await c.create(two, 'x');
        const inOne = await c.create(one, 'y');
        const [first] = await scoped.next();
        expect(first!.object.metadata).toMatchObject({ namespace: one, name: 'y', resourceVersion: inOne.metadata.resourceVersion });
        const both = await all.next(2);
        expect(both.map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}@${rvOf(e.object)}`)).toEqual([
          `ADDED ${two}/x@${rvOf(inTwo)}`,
          `ADDED ${one}/y@${rvOf(inOne)}`,
        ]);
      });

      it('with a label selector sends DELETED when an update stops matching and ADDED when one starts', async () => {
        const ns = await c.namespace('wlabel');
        let o = await c.create(ns, 'o', { v: '1' }, { app: 'web' });
        const rv = (await c.list(cmPath(ns))).body.metadata.resourceVersion;
        const w = await c.watch(cmPath(ns), `resourceVersion=${rv}&labelSelector=app%3Dweb`);
        o = await c.update(ns, o, { labels: { app: 'db' } });
        const leftAt = rvOf(o);
        await c.create(ns, 'other', { v: '1' }, { app: 'db' });
        o = await c.update(ns, o, { data: { v: '2' } });
        o = await c.update(ns, o, { labels: { app: 'web' } });
        const enteredAt = rvOf(o);
        o = await c.update(ns, o, { data: { v: '3' } });
        const events = await w.next(3);
        expect(events.map(brief)).toEqual([
          { type: 'DELETED', name: 'o', rv: leftAt },
          { type: 'ADDED', name: 'o', rv: enteredAt },
          { type: 'MODIFIED', name: 'o', rv: rvOf(o) },
        ]);
        expect(events[1]!.object.metadata.labels).toEqual({ app: 'web' });
      });

      it('with fieldSelector metadata.name sends only that object’s events', async () => {
        const ns = await c.namespace('wfield');
        const rv = (await c.list(cmPath(ns))).body.metadata.resourceVersion;
        const w = await c.watch(cmPath(ns), `resourceVersion=${rv}&fieldSelector=metadata.name%3Dwanted`);
        await c.create(ns, 'other');
        const wanted = await c.create(ns, 'wanted');
        await c.create(ns, 'another');
        const updated = await c.update(ns, wanted, { data: { v: '2' } });
        const events = await w.next(2);
        expect(events.map(brief)).toEqual([
          { type: 'ADDED', name: 'wanted', rv: rvOf(wanted) },
          { type: 'MODIFIED', name: 'wanted', rv: rvOf(updated) },
        ]);
      });

      it('with allowWatchBookmarks sends BOOKMARKs holding only kind, apiVersion and metadata.resourceVersion', async () => {
        const ns = await c.namespace('wbook');
        const created = await c.create(ns, 'a');
        const w = await c.watch(cmPath(ns), `resourceVersion=${created.metadata.resourceVersion}&allowWatchBookmarks=true`);
        const [bookmark] = await w.next();
        expect(bookmark!.type).toBe('BOOKMARK');
        expect(Object.keys(bookmark!.object).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
        expect(bookmark!.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
        expect(Object.keys(bookmark!.object.metadata)).toEqual(['resourceVersion']);
        expect(rvOf(bookmark!.object)).toBeGreaterThanOrEqual(rvOf(created));
      });

      it('never sends a BOOKMARK older than where the watch started or than an event it sent', async () => {
        const ns = await c.namespace('wbook-floor');
        await c.create(ns, 'a');
        // A later revision of another type: the ConfigMap cache has seen no event at it.
        const other = await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${ns}-later` } });
        const start = rvOf(other.body);
        const w = await c.watch(cmPath(ns), `resourceVersion=${start}&allowWatchBookmarks=true`);
        const [idle] = await w.next();
        expect(idle!.type).toBe('BOOKMARK');
        expect(rvOf(idle!.object)).toBeGreaterThanOrEqual(start);
        const created = await c.create(ns, 'b');
        const events = await w.until((e) => e.type === 'BOOKMARK' && rvOf(e.object) >= rvOf(created), 'a bookmark at or after the create');
        let floor = rvOf(idle!.object);
        for (const e of events) {
          expect(rvOf(e.object), JSON.stringify(events.map(brief))).toBeGreaterThanOrEqual(floor);
          floor = rvOf(e.object);
        }
        expect(events.filter((e) => e.type !== 'BOOKMARK').map(brief)).toEqual([{ type: 'ADDED', name: 'b', rv: rvOf(created) }]);
      });

      it('answers 400 to sendInitialEvents=true without resourceVersionMatch=NotOlderThan', async () => {
        await c.unchanged(async () => {
          for (const query of ['watch=1&sendInitialEvents=true', 'watch=1&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=5']) {
            expectStatus(await c.refused(cmPath('default'), query), 400, 'BadRequest');
          }
        });
      });

      it('answers 400 to resourceVersionMatch on a watch without sendInitialEvents', async () => {
        await c.unchanged(async () => {
          expectStatus(await c.refused(cmPath('default'), 'watch=1&resourceVersionMatch=NotOlderThan&resourceVersion=1'), 400, 'BadRequest');
        });
      });

      for (const [label, rvQuery] of [
        ['unset', () => ''],
        ['empty', () => 'resourceVersion='],
        ['the latest write', (latest: number) => `resourceVersion=${latest}`],
      ] as const) {
        it(`as a watch list (sendInitialEvents, resourceVersion ${label}) sends the state, the initial-events-end BOOKMARK, then live events`, async () => {
          const ns = await c.namespace('wlist');
          const objects = [await c.create(ns, 'a'), await c.create(ns, 'b')];
          objects[0] = await c.update(ns, objects[0], { data: { v: '2' } });
          const latest = Math.max(...objects.map(rvOf));
          const query = ['sendInitialEvents=true', 'resourceVersionMatch=NotOlderThan', 'allowWatchBookmarks=true', rvQuery(latest)].filter(Boolean).join('&');
          const w = await c.watch(cmPath(ns), query);
          const initial = await w.next(2);
          expect(initial.map((e) => e.type)).toEqual(['ADDED', 'ADDED']);
          expect(versions(initial.map((e) => e.object))).toEqual(versions(objects));
          const [end] = await w.next();
          expect(end!.type).toBe('BOOKMARK');
          expect(end!.object.metadata.annotations).toEqual({ 'svc.io/initial-events-end': 'true' });
          expect(rvOf(end!.object)).toBeGreaterThanOrEqual(latest);

          const created = await c.create(ns, 'c');
          const live = await w.until((e) => e.type !== 'BOOKMARK', 'a live event');
          expect(brief(live[live.length - 1]!)).toEqual({ type: 'ADDED', name: 'c', rv: rvOf(created) });
          for (const b of live.slice(0, -1)) {
            expect(b.object.metadata.annotations).toBeUndefined();
            expect(rvOf(b.object)).toBeGreaterThanOrEqual(rvOf(end!.object));
          }
        });
      }

      it('with timeoutSeconds=1 ends the stream by itself, cleanly', async () => {
        const ns = await c.namespace('wtimeout');
        await c.create(ns, 'a');
        const w = await c.watch(cmPath(ns), 'timeoutSeconds=1');
        const rest = await w.rest();
        expect(rest.map(brief)).toEqual([{ type: 'ADDED', name: 'a', rv: expect.any(Number) }]);
        expect(w.ended).toBe('end');
        expect(w.complete).toBe(true);
      });

      it('keeps a watch with a very long timeoutSeconds open', async () => {
        const ns = await c.namespace('wlong');
        const rv = (await c.list(cmPath(ns))).body.metadata.resourceVersion;
        // 30 days: past what one Node timer can count (2^31 - 1 ms).
        const w = await c.watch(cmPath(ns), `resourceVersion=${rv}&timeoutSeconds=${30 * 24 * 3600}&allowWatchBookmarks=true`);
        const [bookmark] = await w.next();
        expect(bookmark!.type).toBe('BOOKMARK');
        const created = await c.create(ns, 'a');
        const events = await w.until((e) => e.type !== 'BOOKMARK');
        expect(brief(events[events.length - 1]!)).toEqual({ type: 'ADDED', name: 'a', rv: rvOf(created) });
        expect(w.ended).toBeUndefined();
      });

      it('answers 504 Too large resource version to a watch from a version the server has not reached, after a brief wait (issue #21)', async () => {
        // A memory-store server restarted under a running client: the client's version is ahead of
        // everything this server has. Waiting on it silently would stall the client forever.
        const future = (await s.store.revision()) + 1000;
        await c.unchanged(async () => {
          const res = await c.refused(cmPath('default'), `watch=1&resourceVersion=${future}`);
          expectStatus(res, 504, 'Timeout');
          expect(res.body.message).toContain('Too large resource version');
          expect(res.body.details.causes[0].reason).toBe('ResourceVersionTooLarge');
          expect(res.body.details.retryAfterSeconds).toBe(1);
          expect(res.headers['retry-after']).toBe('1');
        });
      });

      const badWatches: [string, string][] = [
        ['a non-numeric resourceVersion', 'resourceVersion=abc'],
        ['a negative resourceVersion', 'resourceVersion=-1'],
        ['a non-numeric timeoutSeconds', 'timeoutSeconds=soon'],
        ['a negative timeoutSeconds', 'timeoutSeconds=-1'],
        ['a fractional timeoutSeconds', 'timeoutSeconds=1.5'],
        ['a bad allowWatchBookmarks', 'allowWatchBookmarks=maybe'],
        ['a bad sendInitialEvents', 'sendInitialEvents=maybe&resourceVersionMatch=NotOlderThan'],
        ['an unknown resourceVersionMatch', 'sendInitialEvents=true&resourceVersionMatch=Newest'],
        ['a malformed label selector', 'labelSelector=app%20in%20('],
        ['an unsupported field selector', 'fieldSelector=spec.unknownField%3Dx'],
      ];
      for (const [what, query] of badWatches) {
        it(`answers 400 to ${what} before any stream`, async () => {
          await c.unchanged(async () => {
            const res = await c.refused(cmPath('default'), `watch=1&${query}`);
            expectStatus(res, 400, 'BadRequest');
            expect(res.headers['content-type']).toMatch(/^application\/json/);
          });
        });
      }
    });
  });

  describe(`watch history and compaction on the ${backend} store`, () => {
    /** History kept 25 ms: a watch from a few writes back goes to the store. */
    const HISTORY_MS = 25;
    let h: TestServer;
    let c: Client;
    beforeAll(async () => {
      h = await startTestServer(backend, { ...FAST, watchHistoryWindowMs: HISTORY_MS });
      c = new Client(h);
    });
    afterEach(() => c.closeStreams());
    afterAll(async () => {
      await h?.close();
    });

    it('replays from the store a watch older than the history the store still holds', async () => {
      const ns = await c.namespace('replay');
      const start = (await c.list(cmPath(ns))).body.metadata.resourceVersion;
      let o = await c.create(ns, 'o', { v: '0' });
      const expected = [{ type: 'ADDED', name: 'o', rv: rvOf(o) }];
      for (let i = 1; i <= 3; i++) {
        o = await c.update(ns, o, { data: { v: String(i) } });
        expected.push({ type: 'MODIFIED', name: 'o', rv: rvOf(o) });
      }
      expected.push({ type: 'DELETED', name: 'o', rv: await c.remove(ns, 'o') });
      await sleep(HISTORY_MS * 3); // those events are now older than the history window

      const w = await c.watch(cmPath(ns), `resourceVersion=${start}`);
      const replayed = await w.next(expected.length);
      expect(replayed.map(brief)).toEqual(expected);
      expect(replayed[replayed.length - 1]!.object.data).toEqual({ v: '3' });
      const live = await c.create(ns, 'p');
      const [next] = await w.next();
      expect(brief(next!)).toEqual({ type: 'ADDED', name: 'p', rv: rvOf(live) });
    });

    it('answers 200, one ERROR 410 Expired event, then the end, to a watch from a revision compacted everywhere', async () => {
      const ns = await c.namespace('expired');
      const start = (await c.list(cmPath(ns))).body.metadata.resourceVersion;
      let o = await c.create(ns, 'o');
      o = await c.update(ns, o, { data: { v: '2' } });
      await c.update(ns, o, { data: { v: '3' } });
      await h.store.compact(await h.store.revision());
      await sleep(HISTORY_MS * 3);

      const w = await c.watch(cmPath(ns), `resourceVersion=${start}`);
      expect(w.status).toBe(200);
      const events = await w.rest();
      expect(events.length).toBe(1);
      const [error] = events;
      expect(error!.type).toBe('ERROR');
      expect(error!.object).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired' });
      expect(error!.object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
      expect(error!.object.message).toContain(`too old resource version: ${start} (`);
      expect(w.ended).toBe('end');
    });

    it('serves the next page of a token whose revision the store compacted while the cache still holds it', async () => {
      const ns = await c.namespace('cpage');
      const path = cmPath(ns);
      let last: any;
      for (const name of ['a', 'b', 'c', 'd']) last = await c.create(ns, name);
      await c.synced(path, rvOf(last));
      const first = (await c.list(path, 'limit=2')).body;
      expect(names(first.items)).toEqual(['a', 'b']);
      await c.create(ns, 'bb');
      await c.remove(ns, 'c');
      await h.store.compact(await h.store.revision());

      const next = await c.list(path, `limit=2&continue=${encodeURIComponent(first.metadata.continue)}`);
      expect(next.status).toBe(200);
      expect(next.body.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      expect(names(next.body.items)).toEqual(['c', 'd']);
    });

    it('answers 410 Expired with a continue token to a token whose revision only the compacted store could serve', async () => {
      const ns = await c.namespace('cgone');
      const path = cmPath(ns);
      for (const name of ['a', 'b', 'c', 'd']) await c.create(ns, name);
      const first = (await c.list(path, 'limit=2')).body;
      await c.remove(ns, 'c');
      // A restarted server (same token key) starts its cache after the token's revision: only the store holds that state.
      const restarted = await buildApp({ store: h.store, authenticate: () => USER, continueTokenKey: KEY, watchHistoryWindowMs: HISTORY_MS });
      try {
        const get = async (query: string) => {
          const res = await restarted.inject({ method: 'GET', url: `${path}?${query}` });
          return { status: res.statusCode, body: JSON.parse(res.body) };
        };
        const fromStore = await get(`limit=2&continue=${encodeURIComponent(first.metadata.continue)}`);
        expect(fromStore.status).toBe(200);
        expect(fromStore.body.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
        expect(names(fromStore.body.items)).toEqual(['c', 'd']);

        await h.store.compact(await h.store.revision());
        const expired = await get(`limit=2&continue=${encodeURIComponent(first.metadata.continue)}`);
        expectStatus(expired, 410, 'Expired');
        expect(expired.body.message).toBe(CONTINUE_EXPIRED_MESSAGE);
        const token: string = expired.body.metadata.continue;
        expect(token.length).toBeGreaterThan(0);
        const rest = await get(`limit=2&continue=${encodeURIComponent(token)}`);
        expect(rest.status).toBe(200);
        expect(names(rest.body.items)).toEqual(['d']);
      } finally {
        await restarted.close();
      }
    });

    it('keeps other watches flowing while watches that replay from the store are cut off as it compacts', async () => {
      // Its own server: on a backend where this breaks, the next test should not inherit the damage.
      const own = await startTestServer(backend, { ...FAST, watchHistoryWindowMs: HISTORY_MS });
      const oc = new Client(own);
      try {
        const ns = await oc.namespace('cutcompact');
        const path = cmPath(ns);
        const steady = await oc.watch(path, `resourceVersion=${(await oc.list(path)).body.metadata.resourceVersion}`);
        let created = 0;
        for (let round = 0; round < 40; round++) {
          const from = await own.store.revision();
          const made: any[] = [];
          for (let k = 0; k < 3; k++) made.push(await oc.create(ns, `o${created++}`));
          // The steady watch still gets every write (a stall after an earlier round shows here).
          expect((await steady.next(3)).map(brief)).toEqual(made.map((o) => ({ type: 'ADDED', name: o.metadata.name, rv: rvOf(o) })));
          await sleep(HISTORY_MS * 2); // older than the history: these watches replay from the store
          const replays = await Promise.all(Array.from({ length: 5 }, () => oc.watch(path, `resourceVersion=${from}`)));
          await own.store.compact(await own.store.revision());
          // Hang up while the store may be ending the same watches for the compaction.
          await Promise.all(
            replays.map(async (w) => {
              await sleep(Math.random() * 120);
              w.abort();
            }),
          );
        }
        const last = await oc.create(ns, 'last');
        expect((await steady.next()).map(brief)).toEqual([{ type: 'ADDED', name: 'last', rv: rvOf(last) }]);
      } finally {
        oc.closeStreams();
        await own.close();
      }
    });

    it('a client that lists, watches, is cut off at random and resumes ends with exactly the final list', async () => {
      const seed = Number(process.env['WATCH_PROPERTY_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
      const why = `seed ${seed} (set WATCH_PROPERTY_SEED to replay the client's choices)`;
      const random = prng(seed);
      const ns = await c.namespace('prop');
      const path = cmPath(ns);
      const POOL = ['a', 'b', 'c', 'd', 'e', 'f'];
      const WRITERS = 3;
      const OPS = 40;

      // Writers: create, update (read-modify-write), delete, over HTTP; conflicts are expected.
      let writing = true;
      const writer = async (id: number) => {
        const mine = prng(seed + id + 1);
        for (let i = 0; i < OPS; i++) {
          const name = POOL[Math.floor(mine() * POOL.length)]!;
          const op = mine();
          if (op < 0.35) {
            const res = await h.http('POST', path, cm(name, { w: `${id}-${i}` }));
            expect([201, 409]).toContain(res.status);
          } else if (op < 0.8) {
            const got = await h.http('GET', `${path}/${name}`);
            if (got.status !== 200) continue;
            const res = await h.http('PUT', `${path}/${name}`, { ...got.body, data: { w: `${id}-${i}` } });
            // 201: deleted meanwhile, and a PUT of an absent object creates it.
            expect([200, 201, 404, 409]).toContain(res.status);
          } else {
            const res = await h.http('DELETE', `${path}/${name}`);
            // Never 409: a delete without preconditions reads again when a concurrent update wins.
            expect([200, 404]).toContain(res.status);
          }
        }
      };
      // Compaction behind the writers, so that some resumptions find their revision gone (on etcd
      // too: the client fix in src/storage/etcd-stray-responses.ts keeps its watches alive).
      const compacting = true;
      let compactions = 0;
      const compactor = async () => {
        while (writing && compacting) {
          await sleep(40);
          const revision = await h.store.revision();
          if (revision > 5) {
            await h.store.compact(revision - 3);
            compactions++;
          }
        }
      };
      let final: { rv: number; items: Record<string, number> } | undefined;
      const writers = (async () => {
        const compacted = compactor();
        await Promise.all(Array.from({ length: WRITERS }, (_, id) => writer(id)));
        writing = false;
        await compacted;
        const listed = await h.http('GET', path);
        final = { rv: rvOf(listed.body), items: Object.fromEntries(listed.body.items.map((i: any) => [i.metadata.name, rvOf(i)])) };
      })();
      // A failed writer fails the test now, not when the client gives up waiting for the end.
      let writerError: unknown;
      writers.catch((error: unknown) => {
        writerError = error ?? new Error('a writer failed');
      });
      const checkWriters = () => {
        if (writerError) throw writerError;
      };

      // The client: the state it built, and every object version it was told about, in order.
      const state = new Map<string, number>();
      const seen = new Map<string, number[]>();
      let lastRv = 0;
      let relists = 0;
      let cuts = 0;
      const relist = async () => {
        const listed = await h.http('GET', path);
        expect(listed.status).toBe(200);
        state.clear();
        for (const item of listed.body.items) {
          const name = item.metadata.name as string;
          const history = seen.get(name) ?? [];
          // A consistent list is never older than what a watch already said about an object.
          expect(rvOf(item), why).toBeGreaterThanOrEqual(history[history.length - 1] ?? 0);
          state.set(name, rvOf(item));
        }
        lastRv = rvOf(listed.body);
        relists++;
      };
      const caughtUp = () => final !== undefined && lastRv >= final.rv;

      await relist();
      let rounds = 0;
      while (!caughtUp()) {
        checkWriters();
        if (++rounds > 500) throw new Error(`the client never caught up; ${why}`);
        const w = await c.watch(path, `resourceVersion=${lastRv}&allowWatchBookmarks=true`);
        const cutAfter = 1 + Math.floor(random() * 12);
        let taken = 0;
        let expired = false;
        while (!caughtUp()) {
          checkWriters();
          let event: WatchEvent;
          try {
            [event] = (await w.next()) as [WatchEvent];
          } catch (error) {
            if (w.ended === 'end') break; // the server ended the stream: resume
            throw error;
          }
          taken++;
          if (event.type === 'ERROR') {
            expect(event.object, why).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
            expired = true;
            break;
          }
          const rv = rvOf(event.object);
          if (event.type === 'BOOKMARK') {
            expect(rv, `a bookmark went back: ${why}`).toBeGreaterThanOrEqual(lastRv);
            lastRv = rv;
            continue;
          }
          const name = event.object.metadata.name as string;
          const history = seen.get(name) ?? [];
          expect(rv, `events out of order or repeated for ${name} (${history.join(',')} then ${rv}); ${why}`).toBeGreaterThan(history[history.length - 1] ?? 0);
          expect(rv, `event at or before the resume point; ${why}`).toBeGreaterThan(lastRv);
          seen.set(name, [...history, rv]);
          if (event.type === 'DELETED') state.delete(name);
          else state.set(name, rv);
          lastRv = rv;
          if (taken >= cutAfter && !final) break; // hang up at a random point
        }
        w.abort();
        if (expired) await relist();
        else cuts++;
        // Sometimes stay away long enough for the history to move on and the store to compact.
        if (!expired && random() < 0.3) await sleep(HISTORY_MS * (1 + random() * 3));
      }
      await writers;

      expect(Object.fromEntries(state), why).toEqual(final!.items);
      for (const [name, rvs] of seen) {
        expect(
          rvs.every((rv, i) => i === 0 || rv > rvs[i - 1]!),
          `${name}: ${rvs.join(',')}; ${why}`,
        ).toBe(true);
      }
      // What the run exercised (not asserted: it depends on scheduling).
      console.info(`watch property (${backend}): ${cuts} cuts, ${relists} lists, ${compactions} compactions, ${[...seen.values()].flat().length} events; ${why}`);
    });
  });

  describe(`a slow watcher on the ${backend} store`, () => {
    let w5: TestServer;
    let c: Client;
    beforeAll(async () => {
      w5 = await startTestServer(backend, { ...FAST, watchBufferEvents: 5 });
      c = new Client(w5);
    });
    afterEach(() => c.closeStreams());
    afterAll(async () => {
      await w5?.close();
    });

    it('sends a whole initial state far larger than the buffer to a client that reads', async () => {
      const ns = await c.namespace('bigstate');
      const big = 'x'.repeat(64 * 1024);
      const objects: any[] = [];
      for (let i = 0; i < 40; i++) objects.push(await c.create(ns, `o${String(i).padStart(2, '0')}`, { big }));
      const w = await c.watch(cmPath(ns), 'sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true');
      const initial = await w.next(objects.length + 1);
      expect(initial.slice(0, -1).map(brief)).toEqual(objects.map((o) => ({ type: 'ADDED', name: o.metadata.name, rv: rvOf(o) })));
      expect(initial[objects.length]!.object.metadata.annotations).toEqual({ 'svc.io/initial-events-end': 'true' });
      const after = await c.create(ns, 'later');
      const live = await w.until((e) => e.type !== 'BOOKMARK');
      expect(brief(live[live.length - 1]!)).toEqual({ type: 'ADDED', name: 'later', rv: rvOf(after) });
    });

    it('is ended by the server when it stops reading, and a watch from its last resourceVersion gets the rest', async () => {
      const ns = await c.namespace('slow');
      const SIZE = 1024 * 1024;
      const big = 'x'.repeat(SIZE);
      // Far more than the socket buffers and the 5 held events can take.
      const updates = Math.ceil(socketBufferBytes() / SIZE) + 12;
      let o = await c.create(ns, 'big', { v: '0', big });
      const start = rvOf(o);
      const w = await c.watch(cmPath(ns), `resourceVersion=${start}`);
      w.pause();
      const written: number[] = [];
      for (let i = 1; i <= updates; i++) {
        o = await c.update(ns, o, { data: { v: String(i), big } });
        written.push(rvOf(o));
      }
      w.resume();
      const got = await w.rest();
      expect(w.ended).toBe('end');
      const first = got.map((e) => rvOf(e.object));
      expect(got.every((e) => e.type === 'MODIFIED')).toBe(true);
      expect(first.length).toBeLessThan(written.length);
      expect(first).toEqual(written.slice(0, first.length));

      const from = first.length > 0 ? first[first.length - 1]! : start;
      const again = await c.watch(cmPath(ns), `resourceVersion=${from}`);
      const rest = await again.next(written.length - first.length);
      expect(rest.map((e) => rvOf(e.object))).toEqual(written.slice(first.length));
      expect(rest[rest.length - 1]!.object.data.v).toBe(String(updates));
    });
  });
}
