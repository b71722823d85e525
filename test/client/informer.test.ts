import type { Subscription } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/api/index.js';
import { builtin, CacheWriter, fastestDecodeMode, Informer, InformerFactory, labelsIndex, resource, stripManagedFields, type Client, type InformerEvent } from '../../src/client/index.js';
import { recordOf } from '../../src/client/lazy/cached-record.js';
import { LazyRecord } from '../../src/client/lazy/json-view.js';
import { ProtoRecord } from '../../src/client/lazy/proto-view.js';
import { cm, FAST, startClientTestServer, until, type ClientTestServer } from './support.js';

let t: ClientTestServer;
let client: Client;
const cleanups: Array<() => void> = [];
let nsCount = 0;

beforeAll(async () => {
  t = await startClientTestServer({ watchHistoryWindowMs: 1 });
  client = t.client;
});
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
afterAll(() => t.close());

async function freshNamespace(): Promise<string> {
  const name = `i-${++nsCount}`;
  await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

function informer(ns: string, options: ConstructorParameters<typeof Informer<ConfigMap>>[2] = {}) {
  const inf = new Informer(client, builtin.configMaps, { namespace: ns, ...FAST, ...options });
  const events: InformerEvent<ConfigMap>[] = [];
  const sub: Subscription = inf.events$.subscribe((e) => events.push(e));
  cleanups.push(() => (sub.unsubscribe(), inf.stop()));
  return { inf, events };
}

const brief = (e: InformerEvent<ConfigMap>) =>
  e.type === 'deleted' ? `deleted ${e.object.metadata.name}${e.finalStateUnknown ? ' (tombstone)' : ''}` : `${e.type} ${e.object.metadata.name}`;

// Every behaviour holds for every cache: decoded objects, lazy views over the JSON text, and
// lazy views over protobuf bytes (lists and watches in protobuf).
describe.each(['eager', 'lazy', 'protobuf'] as const)('Informer (%s decode)', (decode) => {
  const make = (ns: string, options: Parameters<typeof informer>[1] = {}) => informer(ns, { decode, ...options });

  it('caches the list, announces changes with the old state, and marks itself synced', async () => {
    const ns = await freshNamespace();
    await client.create(builtin.configMaps, cm('a', { v: '1' }), { namespace: ns });
    const { inf, events } = make(ns);
    const synced: boolean[] = [];
    cleanups.push(() => sync.unsubscribe());
    const sync = inf.synced$.subscribe((v) => synced.push(v));
    await inf.waitForSync();
    expect(synced).toEqual([false, true]);
    expect(inf.store.getByName('a', ns)?.data).toEqual({ v: '1' });
    await client.patch(builtin.configMaps, 'a', { data: { v: '2' } }, { namespace: ns });
    await until(() => events.length === 2, 'the update');
    const update = events[1]!;
    expect(update.type).toBe('updated');
    if (update.type === 'updated') {
      expect(update.old.data).toEqual({ v: '1' });
      expect(update.object.data).toEqual({ v: '2' });
      // A plain property in every cache: a copied change keeps its old state.
      expect(Object.getOwnPropertyDescriptor(update, 'old')).toHaveProperty('value');
      expect({ ...update }.old.data).toEqual({ v: '1' });
    }
    await client.delete(builtin.configMaps, 'a', { namespace: ns });
    await until(() => events.length === 3, 'the delete');
    expect(events.map(brief)).toEqual(['added a', 'updated a', 'deleted a']);
    expect(inf.store.size).toBe(0);
  });

  it('stores frozen objects and shares them with events', async () => {
    const ns = await freshNamespace();
    await client.create(builtin.configMaps, cm('f'), { namespace: ns });
    const { inf, events } = make(ns);
    await inf.waitForSync();
    const cached = inf.store.getByName('f', ns)!;
    expect(Object.isFrozen(cached)).toBe(true);
    expect(Object.isFrozen(cached.metadata)).toBe(true);
    expect(events[0]!.object).toBe(cached);
  });

  it('indexes by namespace, by label and by a custom function', async () => {
    const ns = await freshNamespace();
    await client.create(builtin.configMaps, cm('x', { size: 'big' }, { app: 'web' }), { namespace: ns });
    await client.create(builtin.configMaps, cm('y', { size: 'small' }, { app: 'db' }), { namespace: ns });
    const { inf } = make(ns, { indexers: { size: (o) => (o.data?.['size'] ? [o.data['size']] : []) } });
    await inf.waitForSync();
    expect(inf.store.byIndex('namespace', ns).map((o) => o.metadata.name).sort()).toEqual(['x', 'y']);
    expect(inf.store.byIndex('labels', 'app=web').map((o) => o.metadata.name)).toEqual(['x']);
    expect(inf.store.byIndex('size', 'small').map((o) => o.metadata.name)).toEqual(['y']);
    await client.patch(builtin.configMaps, 'y', { data: { size: 'big' } }, { namespace: ns });
    await until(() => inf.store.byIndex('size', 'big').length === 2, 'the index to follow the update');
    expect(inf.store.byIndex('size', 'small')).toEqual([]);
    expect(() => inf.store.byIndex('nope', 'x')).toThrow(/no index/);
  });

  it('replays the cache as added to a late subscriber', async () => {
    const ns = await freshNamespace();
    await client.create(builtin.configMaps, cm('early'), { namespace: ns });
    const { inf } = make(ns);
    await inf.waitForSync();
    const late: InformerEvent<ConfigMap>[] = [];
    const sub = inf.events$.subscribe((e) => late.push(e));
    cleanups.push(() => sub.unsubscribe());
    expect(late.map(brief)).toEqual(['added early']);
  });

  it('after a relist: tombstones for vanished objects, no update for unchanged ones', async () => {
    const ns = await freshNamespace();
    for (const name of ['keep', 'change', 'vanish']) await client.create(builtin.configMaps, cm(name), { namespace: ns });
    // A second client's informer, whose watch we break and expire while changes happen.
    // A slower back-off, so that the changes below usually land while the watch is away.
    const { inf, events } = make(ns, { backoff: { initialMs: 200, maxMs: 400 } });
    await inf.waitForSync();
    const keep = inf.store.getByName('keep', ns);
    events.length = 0;
    const relists = () => t.requests.filter((u) => u.startsWith(`/api/v1/namespaces/${ns}/configmaps?`) && u.includes('limit=')).length;
    const listsBefore = relists();
    for (let i = 0; relists() === listsBefore; i += 1) {
      t.expireNextWatch();
      t.dropWatches();
      if (i === 0) {
        await client.delete(builtin.configMaps, 'vanish', { namespace: ns });
        await client.patch(builtin.configMaps, 'change', { data: { v: '2' } }, { namespace: ns });
      }
      // Pushes the changes above out of the server's 1 ms history: the resumed watch gets 410.
      await new Promise((r) => setTimeout(r, 3));
      await client.create(builtin.configMaps, cm(`pad-${ns}-${i}`), { namespace: 'default' });
      await until(() => relists() > listsBefore || t.watches.size > 0, 'a new watch');
      if (i > 50) throw new Error('never relisted');
    }
    await until(() => inf.store.getByName('vanish', ns) === undefined && inf.store.getByName('change', ns)?.data?.['v'] === '2', 'the relist');
    const seen = events.map(brief);
    // Either the live watch saw the changes before it was expired, or the relist found them.
    expect(seen.filter((s) => s.includes('keep'))).toEqual([]);
    expect(seen).toContain('updated change');
    expect(seen.some((s) => s === 'deleted vanish (tombstone)' || s === 'deleted vanish')).toBe(true);
    expect(inf.store.getByName('keep', ns)).toBe(keep);
  });

  it('caches what the transform makes of each object (stripManagedFields)', async () => {
    const ns = await freshNamespace();
    const made = await client.create(builtin.configMaps, cm('m'), { namespace: ns, fieldManager: 'tests' });
    expect(made.metadata.managedFields).toBeDefined();
    const { inf } = make(ns, { transform: stripManagedFields });
    await inf.waitForSync();
    expect(inf.store.getByName('m', ns)?.metadata.managedFields).toBeUndefined();
    expect(inf.store.getByName('m', ns)?.metadata.uid).toBe(made.metadata.uid);
  });

  it('re-announces the cache on resync', async () => {
    const ns = await freshNamespace();
    await client.create(builtin.configMaps, cm('r'), { namespace: ns });
    const { inf, events } = make(ns, { resyncPeriodMs: 20 });
    await inf.waitForSync();
    await until(() => events.filter((e) => e.type === 'resync').length >= 2, 'two resyncs');
    expect(events.filter((e) => e.type === 'resync').every((e) => e.object === inf.store.getByName('r', ns))).toBe(true);
  });
});

describe("Informer (decode: 'protobuf')", () => {
  it('lists and watches in protobuf: the cache holds protobuf records, from the list and from the watch', async () => {
    const ns = await freshNamespace();
    await client.create(builtin.configMaps, cm('listed', { v: '1' }, { app: 'a' }), { namespace: ns });
    const { inf, events } = informer(ns, { decode: 'protobuf' });
    await inf.waitForSync();
    expect(recordOf(inf.store.getByName('listed', ns))).toBeInstanceOf(ProtoRecord);
    await client.create(builtin.configMaps, cm('watched', { v: '2' }, { app: 'a' }), { namespace: ns });
    await until(() => events.length === 2, 'the add');
    expect(recordOf(events[1]!.object)).toBeInstanceOf(ProtoRecord);
    expect(inf.store.byIndex('labels', 'app=a').map((o) => o.metadata.name).sort()).toEqual(['listed', 'watched']);
    expect(inf.store.getByName('watched', ns)).toEqual(await client.get(builtin.configMaps, 'watched', { namespace: ns }));
  });
});

describe('Informer default decode: the fastest safe mode', () => {
  it('is protobuf for built-in kinds and lazy JSON for custom resources', () => {
    expect(fastestDecodeMode(builtin.pods)).toBe('protobuf');
    expect(fastestDecodeMode(builtin.leases)).toBe('protobuf');
    // A built-in group named the upstream way is the same group.
    expect(fastestDecodeMode(resource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true }))).toBe('protobuf');
    expect(fastestDecodeMode(resource({ group: 'typed.example.com', version: 'v1', resource: 'widgets', namespaced: true }))).toBe('lazy');
  });

  it('an informer of a built-in kind caches protobuf views unless told eager; cached objects are frozen either way', async () => {
    const ns = await freshNamespace();
    await client.create(builtin.configMaps, cm('d', { v: '1' }), { namespace: ns });
    const fast = informer(ns).inf;
    const eager = informer(ns, { decode: 'eager' }).inf;
    await Promise.all([fast.waitForSync(), eager.waitForSync()]);
    const view = fast.store.getByName('d', ns)!;
    const plain = eager.store.getByName('d', ns)!;
    expect(recordOf(view)).toBeInstanceOf(ProtoRecord);
    expect(recordOf(plain)).toBeUndefined();
    expect(view).toEqual(plain);
    expect(Object.isFrozen(view) && Object.isFrozen(view.metadata) && Object.isFrozen(plain) && Object.isFrozen(plain.metadata)).toBe(true);
    expect(() => {
      (view.metadata as { name?: string }).name = 'changed';
    }).toThrow(TypeError);
  });

  it("a factory's decode default applies to its informers", async () => {
    const ns = await freshNamespace();
    await client.create(builtin.configMaps, cm('f', { v: '1' }), { namespace: ns });
    const factory = new InformerFactory(client, { decode: 'lazy' });
    const inf = factory.informer(builtin.configMaps, { namespace: ns, ...FAST });
    cleanups.push(() => factory.stop());
    await inf.waitForSync();
    expect(recordOf(inf.store.getByName('f', ns))).toBeInstanceOf(LazyRecord);
  });
});

describe('protobuf watch replay', () => {
  it('a burst replayed to a protobuf watch (frames coalesced per tick) arrives whole and in order, as the JSON watch gets it', async () => {
    const ns = await freshNamespace();
    const first = await client.create(builtin.configMaps, cm('c-0'), { namespace: ns });
    for (let i = 1; i < 40; i += 1) await client.create(builtin.configMaps, cm(`c-${i}`), { namespace: ns });
    for (let i = 0; i < 40; i += 3) await client.delete(builtin.configMaps, `c-${i}`, { namespace: ns });
    const replay = (decode: 'eager' | 'protobuf') =>
      new Promise<string[]>((resolve) => {
        const seen: string[] = [];
        const sub = client.watch$(builtin.configMaps, { namespace: ns, resourceVersion: first.metadata.resourceVersion, decode, emitBookmarks: false }).subscribe((e) => {
          if (e.type !== 'ADDED' && e.type !== 'DELETED' && e.type !== 'MODIFIED') return;
          seen.push(`${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`);
          if (seen.length === 39 + 14) {
            sub.unsubscribe();
            resolve(seen);
          }
        });
      });
    const json = await replay('eager');
    expect(json).toHaveLength(53);
    expect(await replay('protobuf')).toEqual(json);
  });
});

describe('CacheWriter', () => {
  const obj = (name: string, rv: string, labels?: Record<string, string>): ConfigMap => ({ metadata: { name, namespace: 'n', resourceVersion: rv, ...(labels ? { labels } : {}) } });

  it('swaps a relist in at once: adds, updates, tombstones, and keeps unchanged objects', () => {
    const writer = new CacheWriter<ConfigMap>({ labels: labelsIndex });
    const keep = obj('keep', '1', { a: 'x' });
    writer.upsert(keep);
    writer.upsert(obj('change', '2'));
    writer.upsert(obj('vanish', '3', { a: 'x' }));
    writer.beginReplace();
    writer.stage(obj('keep', '1', { a: 'x' }));
    writer.stage(obj('change', '5'));
    writer.stage(obj('new', '6'));
    // Until the commit, readers see the old content.
    expect(writer.reader.keys().next().value).toBeDefined();
    expect(writer.reader.getByName('vanish', 'n')).toBeDefined();
    const changes = writer.commitReplace();
    expect(changes.map((c) => `${c.type} ${c.object.metadata.name}${c.type === 'deleted' && c.finalStateUnknown ? ' (tombstone)' : ''}`)).toEqual([
      'updated change',
      'added new',
      'deleted vanish (tombstone)',
    ]);
    expect(writer.reader.getByName('keep', 'n')).toBe(keep);
    expect(writer.reader.byIndex('labels', 'a=x')).toEqual([keep]);
  });

  it('ignores an event whose resourceVersion it already holds', () => {
    const writer = new CacheWriter<ConfigMap>();
    expect(writer.upsert(obj('a', '1'))?.type).toBe('added');
    expect(writer.upsert(obj('a', '1'))).toBeUndefined();
    expect(writer.upsert(obj('a', '2'))?.type).toBe('updated');
    expect(writer.remove(obj('b', '3'))).toBeUndefined();
  });
});

describe('InformerFactory', () => {
  it('shares one informer, one watch and one cache among every consumer of a type', async () => {
    const ns = await freshNamespace();
    await client.create(builtin.configMaps, cm('s'), { namespace: ns });
    const factory = new InformerFactory(client, FAST);
    cleanups.push(() => factory.stop());
    const one = factory.informer(builtin.configMaps, { namespace: ns });
    const two = factory.informer(builtin.configMaps, { namespace: ns, indexers: { name: (o) => [o.metadata.name!] } });
    expect(two).toBe(one);
    const seen: string[][] = [[], [], []];
    for (const list of seen) {
      const sub = one.events$.subscribe((e) => list.push(brief(e)));
      cleanups.push(() => sub.unsubscribe());
    }
    await factory.waitForSync();
    expect(one.store.byIndex('name', 's')).toHaveLength(1);
    const watchRequests = () => t.requests.filter((u) => u.startsWith(`/api/v1/namespaces/${ns}/configmaps?`) && u.includes('watch=1'));
    await until(() => watchRequests().length > 0, 'the watch');
    await client.create(builtin.configMaps, cm('t'), { namespace: ns });
    await until(() => seen.every((l) => l.length === 2), 'every consumer to see the add');
    expect(seen).toEqual([['added s', 'added t'], ['added s', 'added t'], ['added s', 'added t']]);
    expect(watchRequests()).toHaveLength(1);
  });
});
