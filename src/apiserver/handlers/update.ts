import { badRequest, conflict, invalid, optimisticLockMessage } from '../../api/index.js';
import { encodeForStorage, objectKey, prepareForUpdate } from '../objects.js';
import { isDryRun, objectFromBody } from './body.js';
import { queryParam, sendObject, type HandlerContext } from './context.js';
import { createObject, validateForWrite } from './create.js';

/**
 * PUT: replaces the object when the body carries the stored resourceVersion (another one is a
 * 409 Conflict, none a 422), or creates it when it does not exist.
 */
export async function update(ctx: HandlerContext): Promise<unknown> {
  const { type, info } = ctx;
  const body = objectFromBody(ctx);
  const name = info.name!;
  if (body.metadata.name === undefined || body.metadata.name === '') body.metadata = { ...body.metadata, name };
  if (body.metadata.name !== name) {
    throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
  }
  const current = await ctx.reader.get(type, info.namespace, name);
  if (!current) return createObject(ctx, body);

  const object = validateForWrite(ctx, body);
  const sent = object.metadata.resourceVersion;
  if (sent === undefined || sent === '') {
    throw invalid(type.kind, name, [
      { reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'must be specified for an update' },
    ]);
  }
  if (!/^\d+$/.test(sent)) throw badRequest(`invalid resourceVersion ${JSON.stringify(sent)}: must be a decimal integer`);
  if (sent !== current.metadata.resourceVersion) throw conflict({ group: type.group, resource: type.resource }, name, optimisticLockMessage);

  const next = prepareForUpdate(object, current);
  if (isDryRun(queryParam(ctx, 'dryRun'))) return sendObject(ctx, 200, next);
  const kv = await ctx.store.update(objectKey(ctx.store, type, info.namespace, name), encodeForStorage(next), Number(sent));
  return sendObject(ctx, 200, { ...next, metadata: { ...next.metadata, resourceVersion: String(kv.modRevision) } });
}
