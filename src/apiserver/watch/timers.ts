import { Subject, defer, filter, finalize, interval, map, merge, takeUntil, timer, type Observable } from 'rxjs';
import type { Bookmark } from './frames.js';

/**
 * The longest delay one Node timer can wait (2^31 - 1 ms, about 24.8 days). A longer one fires at
 * once, which would end a watch asking for a long timeoutSeconds as soon as it opened.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `frames` with a bookmark every `everyMs` in between, whenever `bookmark` has one to give (a
 * watch gets none before it is live); ends when `frames` ends.
 */
export function withBookmarks<F>(frames: Observable<F>, everyMs: number, bookmark: () => Bookmark | undefined): Observable<F | Bookmark> {
  return defer(() => {
    const ended = new Subject<void>();
    const ticks = interval(everyMs).pipe(
      map(bookmark),
      filter((frame): frame is Bookmark => frame !== undefined),
      takeUntil(ended),
    );
    return merge(frames.pipe(finalize(() => ended.next())), ticks);
  });
}

/** `frames`, completed after `seconds` (the watch's timeout). */
export function until<F>(frames: Observable<F>, seconds: number): Observable<F> {
  return frames.pipe(takeUntil(timer(Math.min(seconds * 1000, MAX_TIMER_MS))));
}
