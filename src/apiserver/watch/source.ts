import { concat, defer, type Observable } from 'rxjs';
import { collectionPrefix } from '../object-keys.js';
import type { ServedObject } from '../served-object.js';
import type { CacheEvent, CacheWatchOptions, WatchCache } from '../../watch-cache/index.js';
import type { HandlerContext } from '../request/index.js';
import type { WatchParameters } from './parameters.js';
import { storeState } from './store-state.js';

/** What a subscriber of the source hears besides events: the end of the initial events, and going live. */
export type SourceHooks = Pick<CacheWatchOptions<ServedObject>, 'onInitialEventsEnd' | 'onLive'>;

/** Where a watch's events come from. */
export interface WatchSource {
  readonly cache: WatchCache<ServedObject>;
  /** The revision the client is known to hold from the start: no bookmark may go below it. */
  readonly floor: number;
  /** The events, for one subscriber with its hooks. */
  events(hooks: SourceHooks): Observable<CacheEvent<ServedObject>>;
}

/**
 * The watch's source, once the server can serve its start (ResourceCaches.sourceOf decides:
 * a version the server never reaches is a 504 here, before the 200). The cache serves every
 * watch; a start only the store can show is listed from the store at its revision, and the watch
 * then goes on from the cache at that revision.
 */
export async function watchSource(ctx: HandlerContext, params: WatchParameters): Promise<WatchSource> {
  const { type, store, caches } = ctx;
  const { filter, trigger, plan } = params;
  const { start, initialEvents } = plan;
  const prefix = collectionPrefix(store, type, ctx.info.namespace);
  const cache = caches.of(type);
  await cache.ready;
  const base = { prefix, ...(filter ? { filter } : {}), ...(trigger !== undefined ? { trigger } : {}) };
  const from = await caches.sourceOf(type, start);
  if (start.kind === 'Exact') {
    // The cache (which may not have applied that revision yet) can be behind the client.
    return { cache, floor: start.revision, events: (hooks) => cache.watch({ ...base, ...hooks, fromRevision: start.revision }) };
  }
  if (from === 'cache') {
    return { cache, floor: 0, events: (hooks) => cache.watch({ ...base, ...hooks, ...(initialEvents ? { initialEvents: true } : {}) }) };
  }
  const revision = await store.revision();
  const decode = caches.decoderOf(type);
  return {
    cache,
    floor: revision,
    events: (hooks) =>
      initialEvents
        ? concat(storeState(store, decode, prefix, revision, filter, hooks.onInitialEventsEnd), defer(() => cache.watch({ ...base, ...hooks, fromRevision: revision })))
        : cache.watch({ ...base, ...hooks, fromRevision: revision }),
  };
}
