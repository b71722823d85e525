import { badRequest, conflict, invalid, optimisticLockMessage } from '../../api/index.js';
import { fieldValidationOf } from '../writes/field-validation.js';
import { updateObject } from '../writes/update-object.js';
import { writeManagerOf } from '../writes/write-options.js';
import { dryRunOf, nameFromUrl, objectFromBody, sendObject, type HandlerContext } from '../request/index.js';
import { admitWrite } from '../writes/admit.js';
import { createObject } from '../writes/create-object.js';
import { revalidate, validateForWrite } from '../writes/validate.js';

/**
 * PUT: replaces the object when the body carries the stored resourceVersion (another one is a
 * 409 Conflict, none a 422), or creates it when it does not exist.
 */
export async function update(ctx: HandlerContext): Promise<unknown> {
  const { type, info } = ctx;
  const dryRun = dryRunOf(ctx);
  const decoded = objectFromBody(ctx);
  const fields = { duplicates: decoded.duplicates, level: fieldValidationOf(ctx) };
  const manager = writeManagerOf(ctx, 'Update');
  const name = info.name!;
  const body = nameFromUrl(decoded.object, name);
  const current = await ctx.reader.get(type, info.namespace, name);
  if (!current) return createObject(ctx, body, { fields, manager });

  const object = validateForWrite(ctx, body, fields);
  const sent = object.metadata.resourceVersion;
  if (sent === undefined || sent === '') {
    throw invalid(type.kind, name, [
      { reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'must be specified for an update' },
    ]);
  }
  if (!/^\d+$/.test(sent)) throw badRequest(`invalid resourceVersion ${JSON.stringify(sent)}: must be a decimal integer`);
  if (sent !== current.metadata.resourceVersion) throw conflict({ group: type.group, resource: type.resource }, name, optimisticLockMessage);
  const admitted = (await admitWrite(ctx, { operation: 'UPDATE', object, oldObject: current, dryRun, optionsKind: 'UpdateOptions', revalidate: (o) => revalidate(ctx, o) }))!;
  return sendObject(ctx, 200, await updateObject(ctx, admitted, current, manager, dryRun));
}
