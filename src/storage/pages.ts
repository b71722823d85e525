import { MAX_KEY_LENGTH } from './keys.js';
import type { ListResult, Store } from './store.js';

export interface StorePagesOptions {
  /** The snapshot to read; absent or 0: the current revision, which the first page fixes for the rest. */
  readonly revision?: number | undefined;
  /** The first key to read (inclusive). */
  readonly startKey?: string | undefined;
  /** Keys per page; absent or 0: everything in one page. */
  readonly pageSize?: number | undefined;
  /**
   * The next page's size from the last one's (default: the same). A reader that filters grows its
   * pages while a selector keeps rejecting what they hold, so a rare match costs few round trips.
   */
  readonly nextPageSize?: ((size: number) => number) | undefined;
}

/**
 * Every key under `prefix` at one revision, a page at a time: the first page fixes the revision,
 * every later one reads that same snapshot from just after the last key of the page before. A
 * consumer that stops early (breaks out of its `for await`) reads no further page.
 *
 * Each page is the store's own `ListResult`: `remaining` counts the keys after its last item.
 */
export async function* storePages<V>(store: Store<V>, prefix: string, options: StorePagesOptions = {}): AsyncGenerator<ListResult<V>, void, undefined> {
  let revision = options.revision ?? 0;
  let startKey = options.startKey;
  let size = options.pageSize ?? 0;
  // Set when the page must start at the last key read (inclusive) rather than after it.
  let repeated: string | undefined;
  for (;;) {
    const page = await store.list(prefix, {
      ...(revision > 0 ? { revision } : {}),
      ...(startKey !== undefined ? { startKey } : {}),
      ...(size > 0 ? { limit: repeated === undefined ? size : size + 1 } : {}),
    });
    revision = page.revision;
    const first = page.items[0];
    yield first !== undefined && first.key === repeated ? { ...page, items: page.items.slice(1) } : page;
    const last = page.items[page.items.length - 1];
    if (page.remaining === 0 || !last) return;
    if (last.key.length < MAX_KEY_LENGTH) {
      startKey = keyAfter(last.key);
      repeated = undefined;
    } else {
      // Its successor would be longer than a key may be: start at the key itself and drop it.
      startKey = repeated = last.key;
    }
    if (options.nextPageSize) size = options.nextPageSize(size);
  }
}

/**
 * The smallest key after `key`: keys are printable ASCII from `!` (0x21) up, so nothing sorts
 * between `key` and `key + "!"`. Continue tokens and the pager start their next page there.
 */
export function keyAfter(key: string): string {
  return `${key}!`;
}
