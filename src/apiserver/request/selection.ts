import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  type FieldSelector,
  type LabelSelector,
} from '../../api/index.js';
import type { ApiObject } from '../api-object.js';
import type { ServedObject } from '../served-object.js';
import type { CachedObject } from '../../watch-cache/index.js';
import type { HandlerContext } from './context.js';
import { queryParam } from './query.js';

/** The label and field selectors of a list, watch or deletecollection, parsed (bad → 400). */
export interface Selection {
  readonly labels?: LabelSelector;
  readonly fields?: FieldSelector;
  /** Whether anything is selected by labels or fields: lists then omit `remainingItemCount`. */
  readonly any: boolean;
}

export function selectionOf(ctx: HandlerContext): Selection {
  const labelText = queryParam(ctx, 'labelSelector');
  const fieldText = queryParam(ctx, 'fieldSelector');
  const labels = labelText ? parseLabelSelector(labelText) : undefined;
  const fields = fieldText ? parseFieldSelector(fieldText, Object.keys(ctx.type.fieldSelectors)) : undefined;
  const any = (labels?.requirements.length ?? 0) + (fields?.requirements.length ?? 0) > 0;
  return { ...(labels ? { labels } : {}), ...(fields ? { fields } : {}), any };
}

/** The selection as a test of a decoded object (write paths). */
export function objectMatcher(ctx: HandlerContext, selection: Selection): (object: ApiObject) => boolean {
  const { labels, fields } = selection;
  return (object) =>
    (labels === undefined || matchesLabels(labels, object.metadata.labels ?? {})) &&
    (fields === undefined || matchesFields(fields, ctx.type, object));
}

/**
 * The selection as a test of a served object, reading the labels and fields it keeps; undefined
 * when nothing is selected, so lists and watches take their unfiltered paths.
 */
export function servedFilter(ctx: HandlerContext, selection: Selection): ((object: CachedObject<ServedObject>) => boolean) | undefined {
  if (!selection.any) return undefined;
  const { labels, fields } = selection;
  const names = Object.keys(ctx.type.fieldSelectors);
  const wanted = (fields?.requirements ?? []).map(({ field, operator, value }) => ({ at: names.indexOf(field), equals: operator === 'Equals', value }));
  return ({ object }) => {
    if (labels !== undefined && !matchesLabels(labels, object.labels)) return false;
    for (const { at, equals, value } of wanted) if ((object.fields[at] === value) !== equals) return false;
    return true;
  };
}
