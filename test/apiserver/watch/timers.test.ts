// The watch's bookmarks and deadline (src/apiserver/watch/timers.ts) on fake timers: RxJS interval
// and timer run on setInterval/setTimeout, which vitest's fake timers drive.
import { Subject } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { until, withBookmarks } from '../../../src/apiserver/watch/timers.js';
import type { Bookmark } from '../../../src/apiserver/watch/frames.js';

describe('watch timers', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('adds a bookmark every interval while the watch gives one, and none after the events end', () => {
    const events = new Subject<string>();
    let live = false;
    const seen: (string | Bookmark)[] = [];
    let done = false;
    withBookmarks(events, 1_000, () => (live ? { type: 'BOOKMARK', revision: 7 } : undefined)).subscribe({ next: (f) => seen.push(f), complete: () => (done = true) });
    vi.advanceTimersByTime(1_000);
    expect(seen).toEqual([]); // not live yet: no bookmark
    live = true;
    events.next('a');
    vi.advanceTimersByTime(2_000);
    expect(seen).toEqual(['a', { type: 'BOOKMARK', revision: 7 }, { type: 'BOOKMARK', revision: 7 }]);
    events.complete();
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes an error on and stops the ticks', () => {
    const events = new Subject<string>();
    let error: unknown;
    withBookmarks(events, 1_000, () => ({ type: 'BOOKMARK', revision: 1 })).subscribe({ error: (e: unknown) => (error = e) });
    events.error(new Error('gone'));
    expect(error).toEqual(new Error('gone'));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends the watch at its timeout, and a timeout past what one timer can wait does not end it at once', () => {
    const events = new Subject<string>();
    let done = false;
    until(events, 30).subscribe({ complete: () => (done = true) });
    vi.advanceTimersByTime(29_999);
    expect(done).toBe(false);
    vi.advanceTimersByTime(1);
    expect(done).toBe(true);
    expect(events.observed).toBe(false);

    let long = false;
    until(new Subject<string>(), 100 * 24 * 3600).subscribe({ complete: () => (long = true) });
    vi.advanceTimersByTime(1_000);
    expect(long).toBe(false);
  });
});
