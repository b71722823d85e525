import { badRequest, booleanParam } from '../../api/index.js';
import { planWatch, type WatchPlan } from '../read-semantics.js';
import type { ServedObject } from '../served-object.js';
import type { CacheFilter } from '../../watch-cache/index.js';
import { queryParam, selectionOf, servedFilter, type HandlerContext } from '../request/index.js';

/** A watch request's query, read and checked: a bad one is a 400 before anything is sent. */
export interface WatchParameters {
  /** The watch table's start point, and whether the initial state comes first. */
  readonly plan: WatchPlan;
  /** `allowWatchBookmarks`. */
  readonly bookmarks: boolean;
  /** When the watch ends: the client's `timeoutSeconds`, or the server's random one. */
  readonly timeoutSeconds: number;
  /** The label and field selectors as a test of a served object; undefined when nothing is selected. */
  readonly filter: CacheFilter<ServedObject> | undefined;
  /** The trigger field's value when the watch selects it with `=`: it is handed only that value's events. */
  readonly trigger: string | undefined;
}

/**
 * `resumeFrom`: an event stream's `Last-Event-ID`. A browser reconnects to the URL it first
 * opened, whose resourceVersion, resourceVersionMatch and sendInitialEvents describe the first
 * start; the id it sends says where it is now, so the watch goes on from exactly there.
 */
export function watchParameters(ctx: HandlerContext, resumeFrom?: string): WatchParameters {
  const plan = planWatch(
    resumeFrom !== undefined
      ? { resourceVersion: resumeFrom, resourceVersionMatch: undefined, sendInitialEvents: undefined }
      : {
          resourceVersion: queryParam(ctx, 'resourceVersion'),
          resourceVersionMatch: queryParam(ctx, 'resourceVersionMatch'),
          sendInitialEvents: queryParam(ctx, 'sendInitialEvents'),
        },
    { watchList: ctx.watch.watchList },
  );
  const bookmarks = booleanParam('allowWatchBookmarks', queryParam(ctx, 'allowWatchBookmarks'), false) === true;
  const timeoutSeconds = parseTimeout(queryParam(ctx, 'timeoutSeconds'), ctx.watch.minRequestTimeoutSeconds);
  const selection = selectionOf(ctx);
  const filter = servedFilter(ctx, selection);
  const triggerField = ctx.caches.triggerField(ctx.type);
  const trigger = selection.fields?.requirements.find((r) => r.field === triggerField && r.operator === 'Equals')?.value;
  return { plan, bookmarks, timeoutSeconds, filter, trigger };
}

/** `timeoutSeconds`: a non-negative integer; unset or 0 picks the server's random timeout. */
function parseTimeout(text: string | undefined, minSeconds: number): number {
  if (text !== undefined && text !== '') {
    if (!/^\d{1,9}$/.test(text)) throw badRequest(`timeoutSeconds ${JSON.stringify(text)} is not valid: it must be a non-negative integer`);
    const seconds = Number(text);
    if (seconds > 0) return seconds;
  }
  return Math.round(minSeconds * (1 + Math.random()));
}

