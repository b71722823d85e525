/**
 * The informer's contract under chaos: random concurrent writes, watches hung up at random, and
 * watches made to find their version compacted (410 → relist). Whatever happened, once the writes
 * stop the cache equals the server's list, and the events told a coherent story: replaying them
 * on an empty map gives the cache (adds of new keys only, updates from the state announced last
 * with a newer version, deletes of known keys).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/api/index.js';
import { builtin, Informer, objectKey, type Client, type InformerEvent } from '../../src/client/index.js';
import { seededRandom as prng } from '../support/prng.js';
import { cm, FAST, startClientTestServer, until, type ClientTestServer } from './support.js';

let t: ClientTestServer;
let client: Client;

beforeAll(async () => {
  t = await startClientTestServer({ watchHistoryWindowMs: 1, bookmarkIntervalMs: 20 });
  client = t.client;
});
afterAll(() => t.close());

const CASES = [
  { seed: 1, initialList: 'list' as const },
  { seed: 2, initialList: 'stream' as const },
  { seed: 3, initialList: 'list' as const },
  { seed: 4, initialList: 'stream' as const },
];

describe('Informer under random writes, disconnects and 410s', () => {
  it.each(CASES.flatMap((c) => [{ ...c, decode: 'eager' as const }, { ...c, decode: 'lazy' as const }, { ...c, decode: 'protobuf' as const }]))('seed $seed ($initialList, $decode decode): the cache ends equal to the server, events coherent', async ({ seed, initialList, decode }) => {
    const random = prng(seed);
    const ns = `prop-${seed}-${decode}`;
    await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const names = Array.from({ length: 12 }, (_, i) => `o-${i}`);
    // Some objects before the informer starts, so the first list has content.
    for (const name of names.slice(0, 4)) await client.create(builtin.configMaps, cm(name), { namespace: ns });

    const expiriesBefore = t.expiries();
    const informer = new Informer(client, builtin.configMaps, { namespace: ns, initialList, decode, pageSize: 3, ...FAST });
    const model = new Map<string, ConfigMap>();
    const violations: string[] = [];
    let eventCount = 0;
    const sub = informer.events$.subscribe((e: InformerEvent<ConfigMap>) => {
      eventCount += 1;
      const key = objectKey(e.object);
      switch (e.type) {
        case 'added':
          if (model.has(key)) violations.push(`added ${key} twice`);
          model.set(key, e.object);
          break;
        case 'updated':
          if (model.get(key) !== e.old) violations.push(`update of ${key} from a state never announced`);
          if (!(Number(e.object.metadata.resourceVersion) > Number(e.old.metadata.resourceVersion))) violations.push(`update of ${key} without a newer version`);
          model.set(key, e.object);
          break;
        case 'deleted':
          if (!model.has(key)) violations.push(`delete of unknown ${key}`);
          model.delete(key);
          break;
        case 'resync':
          break;
      }
    });
    try {
      const inflight = new Set<Promise<unknown>>();
      for (let step = 0; step < 150; step += 1) {
        const r = random();
        const name = names[Math.floor(random() * names.length)]!;
        if (r < 0.06) {
          t.dropWatches();
        } else if (r < 0.1) {
          t.expireNextWatch();
          t.dropWatches();
        } else {
          const op =
            r < 0.45
              ? client.create(builtin.configMaps, cm(name, { step: String(step) }), { namespace: ns })
              : r < 0.8
                ? client.patch(builtin.configMaps, name, { data: { step: String(step) } }, { namespace: ns })
                : client.delete(builtin.configMaps, name, { namespace: ns });
          // Expected refusals (exists, missing) are part of the game.
          const p = op.catch(() => undefined).finally(() => inflight.delete(p));
          inflight.add(p);
        }
        if (inflight.size > 0 && (inflight.size >= 4 || random() < 0.3)) await Promise.race(inflight);
        if (random() < 0.1) await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 10)));
      }
      await Promise.all(inflight);

      const server = await client.list(builtin.configMaps, { namespace: ns });
      const want = Object.fromEntries(server.items.map((o) => [o.metadata.name!, o.metadata.resourceVersion!]));
      const cached = () => Object.fromEntries(informer.store.list().map((o) => [o.metadata.name!, o.metadata.resourceVersion!]));
      await until(() => JSON.stringify(Object.entries(cached()).sort()) === JSON.stringify(Object.entries(want).sort()), 'the cache to equal the server');
      expect(cached()).toEqual(want);
      expect(violations).toEqual([]);
      // The chaos happened: at least one watch found its version compacted and was relisted.
      expect(t.expiries() - expiriesBefore).toBeGreaterThan(0);
      expect([...model.keys()].sort()).toEqual(informer.store.list().map(objectKey).sort());
      for (const [key, object] of model) expect(informer.store.get(key)).toBe(object);
      // Content, not just versions: every cached object equals the server's, field for field.
      for (const item of server.items) expect(informer.store.get(objectKey(item))).toEqual(item);
    } finally {
      sub.unsubscribe();
      informer.stop();
    }
  });
});
