import { toArray } from 'rxjs';
import { firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, type Client } from '../../src/client/index.js';
import { cm, startClientTestServer, type ClientTestServer } from './support.js';

const N = 230;
const NS = 'paging';
let t: ClientTestServer;
let client: Client;

beforeAll(async () => {
  // Continued pages read from the store, so that a compaction expires their tokens.
  t = await startClientTestServer({ featureGates: { ListFromCacheSnapshot: false } });
  client = t.client;
  await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  for (let i = 0; i < N; i += 1) await client.create(builtin.configMaps, cm(`cm-${String(i).padStart(4, '0')}`), { namespace: NS });
});
afterAll(() => t.close());

const listRequests = () => t.requests.filter((url) => url.startsWith(`/api/v1/namespaces/${NS}/configmaps?`) && url.includes('limit=')).length;

describe('list$ and listPages', () => {
  it('list$ follows continue tokens and emits every item once, in order', async () => {
    const before = listRequests();
    const items = await firstValueFrom(client.list$(builtin.configMaps, { namespace: NS, limit: 50 }).pipe(toArray()));
    expect(items.map((i) => i.metadata.name)).toEqual(Array.from({ length: N }, (_, i) => `cm-${String(i).padStart(4, '0')}`));
    expect(listRequests() - before).toBe(Math.ceil(N / 50));
  });

  it('listPages$ reports one resourceVersion for every page and the remaining count', async () => {
    const pages = await firstValueFrom(client.listPages$(builtin.configMaps, { namespace: NS, limit: 100 }).pipe(toArray()));
    expect(pages.map((p) => p.items.length)).toEqual([100, 100, 30]);
    expect(new Set(pages.map((p) => p.resourceVersion)).size).toBe(1);
    expect(pages[0]!.remainingItemCount).toBe(130);
    expect(pages[2]!.continue).toBeUndefined();
  });

  it('listPages fetches a page only when the consumer pulls it', async () => {
    const before = listRequests();
    const iterator = client.listPages(builtin.configMaps, { namespace: NS, limit: 40 })[Symbol.asyncIterator]();
    expect(listRequests() - before).toBe(0);
    const first = await iterator.next();
    expect(first.value?.items).toHaveLength(40);
    expect(listRequests() - before).toBe(1);
    await iterator.next();
    expect(listRequests() - before).toBe(2);
    await iterator.return?.();
    expect(listRequests() - before).toBe(2);
  });

  it('listPages stops fetching when the consumer breaks out', async () => {
    const before = listRequests();
    let seen = 0;
    for await (const page of client.listPages(builtin.configMaps, { namespace: NS, limit: 25 })) {
      seen += page.items.length;
      if (seen >= 75) break;
    }
    expect(listRequests() - before).toBe(3);
  });

  it("'fail' throws the 410 when a continue token expires mid-list", async () => {
    const iterator = client.listPages(builtin.configMaps, { namespace: NS, limit: 100, onExpired: 'fail' })[Symbol.asyncIterator]();
    await iterator.next();
    await expireLists();
    await expect(iterator.next()).rejects.toMatchObject({ reason: 'Expired', code: 410 });
  });

  it("'restart' lists again from the first page and marks it restarted", async () => {
    const iterator = client.listPages(builtin.configMaps, { namespace: NS, limit: 100 })[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value?.restarted).toBe(false);
    await expireLists();
    const again = await iterator.next();
    expect(again.value?.restarted).toBe(true);
    expect(again.value?.items[0]?.metadata.name).toBe('cm-0000');
    const rest = [];
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) rest.push(r.value);
    expect([again.value!, ...rest].reduce((n, p) => n + p.items.length, 0)).toBe(N);
  });

  it("'continue' goes on with the token the 410 carries", async () => {
    const iterator = client.listPages(builtin.configMaps, { namespace: NS, limit: 100, onExpired: 'continue' })[Symbol.asyncIterator]();
    await iterator.next();
    await expireLists();
    const second = await iterator.next();
    expect(second.value?.restarted).toBe(false);
    expect(second.value?.items[0]?.metadata.name).toBe('cm-0100');
  });
});

/** A write, then a compaction at it: every continue token taken before is now too old. */
async function expireLists(): Promise<void> {
  const written = await client.create(builtin.configMaps, cm(`z-${Math.random().toString(36).slice(2, 8)}`), { namespace: 'default' });
  await t.s.store.compact(Number(written.metadata.resourceVersion));
}
