import { Observable } from 'rxjs';
import { storePages, type KeyValue, type Store } from '../../storage/index.js';
import type { ServedObject } from '../served-object.js';
import type { CacheEvent, CacheFilter, CachedObject } from '../../watch-cache/index.js';

/** Keys read from the store per page while a watch is handed its initial state. */
const STORE_PAGE = 1_000;

/**
 * The state a store list shows at `revision`, as synthetic ADDED events, then the end of the
 * initial events (for the bookmark). Used when the cache cannot prove it has that state.
 */
export function storeState(
  store: Store,
  decode: (kv: KeyValue, revision: number) => ServedObject,
  prefix: string,
  revision: number,
  filter: CacheFilter<ServedObject> | undefined,
  onEnd: ((revision: number) => void) | undefined,
): Observable<CacheEvent<ServedObject>> {
  return new Observable<CacheEvent<ServedObject>>((subscriber) => {
    let stopped = false;
    void (async () => {
      for await (const page of storePages(store, prefix, { revision, pageSize: STORE_PAGE })) {
        for (const kv of page.items) {
          if (stopped) return;
          const object = decode(kv, kv.modRevision);
          const cached: CachedObject<ServedObject> = { key: kv.key, revision: kv.modRevision, object, bytes: () => object.json };
          if (!filter || filter(cached)) subscriber.next({ type: 'ADDED', revision, object: cached });
        }
      }
      if (stopped) return;
      onEnd?.(revision);
      subscriber.complete();
    })().catch((error: unknown) => subscriber.error(error));
    return () => {
      stopped = true;
    };
  });
}
