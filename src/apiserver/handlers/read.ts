import { Readable } from 'node:stream';
import {
  badRequest,
  matchesFields,
  matchesLabels,
  notFound,
  parseFieldSelector,
  parseLabelSelector,
  type ResourceType,
} from '../../api/index.js';
import { apiVersionOf, type ApiObject } from '../objects.js';
import { queryParam, type HandlerContext } from './context.js';

export async function getObject(ctx: HandlerContext): Promise<unknown> {
  const { type, info } = ctx;
  const json = await ctx.reader.getJson(type, info.namespace, info.name!);
  if (json === undefined) throw notFound({ group: type.group, resource: type.resource }, info.name!);
  return ctx.reply.code(200).type('application/json').send(json);
}

/** The label and field selectors of a list, watch or deletecollection, parsed (bad → 400). */
export function selectorsOf(ctx: HandlerContext): (object: ApiObject) => boolean {
  const labelText = queryParam(ctx, 'labelSelector');
  const fieldText = queryParam(ctx, 'fieldSelector');
  const labels = labelText ? parseLabelSelector(labelText) : undefined;
  const fields = fieldText ? parseFieldSelector(fieldText, Object.keys(ctx.type.fieldSelectors)) : undefined;
  return (object) =>
    (labels === undefined || matchesLabels(labels, object.metadata.labels ?? {})) &&
    (fields === undefined || matchesFields(fields, ctx.type, object));
}

export function checkLimit(ctx: HandlerContext): void {
  const limit = queryParam(ctx, 'limit');
  if (limit !== undefined && limit !== '' && !/^\d+$/.test(limit)) {
    throw badRequest(`limit must be a non-negative integer, got ${JSON.stringify(limit)}`);
  }
}

/**
 * Writes a `<Kind>List` item by item, so a large collection is never one string in memory.
 * (Paging, resourceVersion semantics and the watch cache arrive with the watch issue.)
 */
export function streamList(ctx: HandlerContext, type: ResourceType, items: Iterable<ApiObject>, resourceVersion: number) {
  const head = `{"kind":${JSON.stringify(`${type.kind}List`)},"apiVersion":${JSON.stringify(apiVersionOf(type))},"metadata":{"resourceVersion":"${resourceVersion}"},"items":[`;
  function* chunks() {
    yield head;
    let first = true;
    for (const item of items) {
      yield (first ? '' : ',') + JSON.stringify(item);
      first = false;
    }
    yield ']}';
  }
  return ctx.reply.code(200).type('application/json').send(Readable.from(chunks()));
}

export async function listObjects(ctx: HandlerContext): Promise<unknown> {
  const matches = selectorsOf(ctx);
  checkLimit(ctx);
  const { items, revision } = await ctx.reader.list(ctx.type, ctx.info.namespace);
  return streamList(ctx, ctx.type, items.filter(matches), revision);
}
