// The class module alone: ix's index loads every creation function (~0.6 MB of heap for one).
import { from as ixFrom, type AsyncIterableX } from 'ix/asynciterable/asynciterablex';
import { Observable } from 'rxjs';
import type { KubeObject } from '../api/index.js';
import { isExpired } from './status.js';
import type { DecodeMode } from './decode-strategy.js';

/** One page of a list, as the server sent it. */
export interface ListPage<T> {
  readonly items: readonly T[];
  /** The list's resourceVersion (every page of one list carries the first page's). */
  readonly resourceVersion: string;
  /** The token of the next page; undefined on the last page. */
  readonly continue: string | undefined;
  /** Objects after this page, when the server counted them (no selector). */
  readonly remainingItemCount: number | undefined;
  /**
   * True on the first page after a `'restart'` (see ExpiredPolicy): every page before this one
   * belongs to an abandoned list and should be discarded.
   */
  readonly restarted: boolean;
}

/**
 * What a paged list does when its continue token expires (410 `Expired`: the list's revision was
 * compacted, or the token is older than the server keeps them — 5 minutes on svc):
 * - `'restart'` (default): list again from the first page, at the newest state; the first page of
 *   the new list says `restarted: true`. Consistent, at the cost of the pages already read.
 *   After `maxRestarts` restarts in one list the 410 is thrown.
 * - `'continue'`: go on with the token the 410 carries (the rest of the collection at the newest
 *   state). Nothing is read twice, but the result mixes two states: objects changed in between
 *   may be missing or appear twice. Kubernetes' own "inconsistent continue".
 * - `'fail'`: throw the 410 StatusError.
 */
export type ExpiredPolicy = 'restart' | 'continue' | 'fail';

export interface ListOptions {
  /** A namespace; unset on a namespaced resource lists every namespace. */
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /** Page size. `list()` default: none (one page of everything); paged lists: 500, as client-go. */
  readonly limit?: number | undefined;
  /** The token of a page to start from. */
  readonly continue?: string | undefined;
  /** Unset (default): the newest state (consistent read). `'0'`: any state the server has in memory. */
  readonly resourceVersion?: string | undefined;
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan' | undefined;
  /**
   * Ask for metadata only (PartialObjectMetadataList): items carry kind, apiVersion and
   * metadata, nothing of spec or status. Default false.
   */
  readonly metadataOnly?: boolean | undefined;
  /**
   * `'lazy'`: items are lazy views (decoded field by field on first read, see lazy/json-view.ts)
   * instead of JSON.parse results. `'protobuf'`: the list asks for protobuf and its items are
   * protobuf views (lazy/proto-view.ts). Default `'eager'`. See DecodeMode.
   */
  readonly decode?: DecodeMode | undefined;
  /** See ExpiredPolicy. Default `'restart'`. */
  readonly onExpired?: ExpiredPolicy | undefined;
  /** Restarts allowed per list under `'restart'` before the 410 is thrown. Default 3. */
  readonly maxRestarts?: number | undefined;
}

/** Fetches one page (the client's `list`). */
export type PageFetcher<T> = (options: ListOptions, signal: AbortSignal | undefined) => Promise<ListPage<T>>;

export const DEFAULT_PAGE_SIZE = 500;

/** The pages of one list, each fetched when the previous one has been consumed. */
export async function* pages<T extends KubeObject>(fetch: PageFetcher<T>, options: ListOptions, signal?: AbortSignal): AsyncGenerator<ListPage<T>> {
  const policy = options.onExpired ?? 'restart';
  const maxRestarts = options.maxRestarts ?? 3;
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  let token = options.continue;
  let restarts = 0;
  let restarted = false;
  for (;;) {
    let page: ListPage<T>;
    try {
      page = await fetch(
        token === undefined
          ? { ...options, limit, continue: undefined }
          : { ...options, limit, continue: token, resourceVersion: undefined, resourceVersionMatch: undefined },
        signal,
      );
    } catch (error) {
      if (!isExpired(error) || token === undefined || policy === 'fail') throw error;
      if (policy === 'continue' && error.listMeta.continue) {
        token = error.listMeta.continue;
        continue;
      }
      if (policy !== 'restart' || restarts >= maxRestarts) throw error;
      restarts += 1;
      restarted = true;
      token = undefined;
      continue;
    }
    yield restarted ? { ...page, restarted: true } : page;
    restarted = false;
    if (page.continue === undefined) return;
    token = page.continue;
  }
}

/** `pages` as an ix AsyncIterable: nothing is fetched until the consumer pulls. */
export function listPagesIx<T extends KubeObject>(fetch: PageFetcher<T>, options: ListOptions): AsyncIterableX<ListPage<T>> {
  return ixFrom({ [Symbol.asyncIterator]: () => pages(fetch, options) });
}

/** `pages` as an Observable; unsubscribing aborts the page in flight. */
export function listPagesObservable<T extends KubeObject>(fetch: PageFetcher<T>, options: ListOptions): Observable<ListPage<T>> {
  return new Observable<ListPage<T>>((subscriber) => {
    const abort = new AbortController();
    void (async () => {
      try {
        for await (const page of pages(fetch, options, abort.signal)) {
          if (subscriber.closed) return;
          subscriber.next(page);
        }
        subscriber.complete();
      } catch (error) {
        if (!abort.signal.aborted) subscriber.error(error);
      }
    })();
    return () => abort.abort();
  });
}

/** The items of every page, in order. Under `'restart'` an item may come twice (see ListPage.restarted). */
export function listItemsObservable<T extends KubeObject>(fetch: PageFetcher<T>, options: ListOptions): Observable<T> {
  return new Observable<T>((subscriber) =>
    listPagesObservable(fetch, options).subscribe({
      next: (page) => {
        for (const item of page.items) {
          if (subscriber.closed) return;
          subscriber.next(item);
        }
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
}
