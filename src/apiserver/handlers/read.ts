import { notFound, type ResourceType } from '../../api/index.js';
import { isStorageError, keyAfter, storePages, type KeyValue, type Store } from '../../storage/index.js';
import { collectionPrefix, objectKey } from '../object-keys.js';
import { planGet, planList } from '../read-semantics.js';
import type { ReadSource } from '../resource-caches.js';
import { bodyOf, type ServedObject } from '../served-object.js';
import type { CacheList, CachedObject } from '../../watch-cache/index.js';
import { GZIP_THRESHOLD_BYTES, PLAIN_JSON, renderObject, type Representation } from '../../encoding/index.js';
import { queryParam, renderOptionsOf, representationOf, sendReadBytes, type HandlerContext, sendList, selectionOf, servedFilter } from '../request/index.js';

type Filter = ((object: CachedObject<ServedObject>) => boolean) | undefined;

export function getObject(ctx: HandlerContext): Promise<unknown> {
  const { type, info, store } = ctx;
  const rep = representationOf(ctx, 'object', true);
  const plan = planGet({ resourceVersion: queryParam(ctx, 'resourceVersion') });
  const key = objectKey(store, type, info.namespace, info.name!);
  const source = ctx.caches.sourceOf(type, plan);
  // The common case — a consistent read on an in-process store — is answered without a wait.
  if (source === 'cache') {
    const object = ctx.caches.of(type).get(key)?.object;
    if (object) return Promise.resolve(sendServed(ctx, rep, object));
  }
  return getObjectAfterWait(ctx, rep, source, key);
}

/**
 * One object in `rep`. Plain JSON is the version's shared bytes as they are (the hot path);
 * anything else is rendered from them per request.
 */
function sendServed(ctx: HandlerContext, rep: Representation, object: ServedObject) {
  if (rep === PLAIN_JSON && object.json.length <= GZIP_THRESHOLD_BYTES && queryParam(ctx, 'pretty') === undefined) {
    const body = bodyOf(object.json);
    return ctx.reply.code(200).type('application/json').send(ctx.rename ? ctx.rename(body) : body);
  }
  const bytes = renderObject(renderOptionsOf(ctx, rep), object.json);
  return sendReadBytes(ctx, rep.contentType, bytes === object.json ? bodyOf(object.json) : bytes);
}

async function getObjectAfterWait(ctx: HandlerContext, rep: Representation, pending: ReadSource | Promise<ReadSource>, key: string): Promise<unknown> {
  const { type, info, store, caches } = ctx;
  const source = await pending;
  let object = source === 'cache' ? caches.of(type).get(key)?.object : undefined;
  // From the store when only it can serve the read, or when the cache holds the key as stored
  // bytes it could not decode: decoding them again answers with an error that names the object.
  if (source === 'store' || (!object && caches.isCorrupt(key))) {
    const kv = await store.get(key);
    object = kv && caches.decoderOf(type)(kv, kv.modRevision);
  }
  if (!object) throw notFound({ group: type.group, resource: type.resource }, info.name!);
  return sendServed(ctx, rep, object);
}

/** One page of a list, from wherever it was served. */
interface Page {
  readonly items: readonly Uint8Array[];
  readonly revision: number;
  /** Keys after the page (matching ones when filtered from the cache); 0 when complete. */
  readonly remaining: number;
  /** The last key examined, when more may follow: the next page starts after it. */
  readonly lastKey: string | undefined;
}

/**
 * list: the list table's plan, then a page from the cache, a cache snapshot, or the store at the
 * plan's revision. Every page of a paged list carries the first page's resourceVersion.
 */
export async function listObjects(ctx: HandlerContext): Promise<unknown> {
  const { type, info, store } = ctx;
  const rep = representationOf(ctx, 'list', true);
  const selection = selectionOf(ctx);
  const filter = servedFilter(ctx, selection);
  const { plan, limit } = planList({
    resourceVersion: queryParam(ctx, 'resourceVersion'),
    resourceVersionMatch: queryParam(ctx, 'resourceVersionMatch'),
    limit: queryParam(ctx, 'limit'),
    continue: queryParam(ctx, 'continue'),
  });
  const prefix = collectionPrefix(store, type, info.namespace);
  const cache = ctx.caches.of(type);
  let page: Page;

  if (plan.kind === 'Continuation') {
    const point = ctx.tokens.read(prefix, plan.token);
    const startKey = prefix + point.start;
    await ctx.caches.sourceOf(type, plan);
    if (point.revision === -1) {
      page = cache.holdsObjects
        ? fromCache(cache.list({ prefix, startKey, limit, filter }), limit)
        : await fromStore(store, ctx.caches.decoderOf(type), prefix, { revision: 0, startKey, limit, filter });
    } else {
      const cached = cache.listAt(point.revision, { prefix, startKey, limit, filter });
      try {
        page = cached ? fromCache(cached, limit) : await fromStore(store, ctx.caches.decoderOf(type), prefix, { revision: point.revision, startKey, limit, filter });
      } catch (error) {
        if (isStorageError(error, 'Compacted')) throw ctx.tokens.expired(prefix, point);
        throw error;
      }
    }
  } else if (plan.kind === 'Exact') {
    // Once the server has reached the revision (or 504): its snapshot in the cache, else the store.
    await ctx.caches.sourceOf(type, plan);
    const cached = cache.listAt(plan.revision, { prefix, limit, filter });
    page = cached ? fromCache(cached, limit) : await fromStore(store, ctx.caches.decoderOf(type), prefix, { revision: plan.revision, limit, filter });
  } else if ((await ctx.caches.sourceOf(type, plan)) === 'cache') {
    page = fromCache(cache.list({ prefix, limit, filter }), limit);
  } else {
    page = await fromStore(store, ctx.caches.decoderOf(type), prefix, { revision: 0, limit, filter });
  }

  const more = page.remaining > 0 && page.lastKey !== undefined;
  return sendList(
    ctx,
    {
      resourceVersion: page.revision,
      continue: more ? ctx.tokens.issue(prefix, { revision: page.revision, start: keyAfter(page.lastKey!).slice(prefix.length) }) : undefined,
      remainingItemCount: more && !selection.any ? page.remaining : undefined,
    },
    page.items,
    rep,
  );
}

function fromCache(list: CacheList<ServedObject>, limit: number): Page {
  const { items, revision, remaining } = list;
  const last = items[items.length - 1];
  return {
    items: items.map((item) => item.object.json),
    revision,
    remaining: limit > 0 ? remaining : 0,
    lastKey: last?.key,
  };
}

/** Store pages grow to this many keys while a selector keeps rejecting what they hold. */
const MAX_STORE_BATCH = 10_000;

/**
 * A page read from the store at `revision` (0: its current one), decoding and filtering as it
 * goes. With a filter it reads on, doubling its batch, until `limit` items match or the
 * collection ends, so a rare selector does not cost hundreds of round trips.
 */
async function fromStore(
  store: Store,
  decode: (kv: KeyValue, revision: number) => ServedObject,
  prefix: string,
  options: { revision: number; startKey?: string; limit: number; filter: Filter },
): Promise<Page> {
  const { limit, filter } = options;
  const items: Uint8Array[] = [];
  let revision = options.revision;
  const pages = storePages(store, prefix, {
    revision,
    startKey: options.startKey,
    pageSize: limit > 0 ? limit : 0,
    nextPageSize: (size) => Math.min(MAX_STORE_BATCH, size * 2),
  });
  for await (const result of pages) {
    revision = result.revision;
    for (let i = 0; i < result.items.length; i++) {
      const kv = result.items[i]!;
      const object = decode(kv, kv.modRevision);
      if (filter && !filter({ key: kv.key, revision: kv.modRevision, object, bytes: () => object.json })) continue;
      items.push(object.json);
      if (limit > 0 && items.length === limit) {
        const remaining = result.remaining + (result.items.length - 1 - i);
        return { items, revision, remaining, lastKey: remaining > 0 ? kv.key : undefined };
      }
    }
  }
  return { items, revision, remaining: 0, lastKey: undefined };
}
