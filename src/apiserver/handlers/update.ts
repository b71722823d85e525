import { badRequest, conflict, invalid, optimisticLockMessage, type ResourceType } from '../../api/index.js';
import { fieldValidationOf } from '../writes/field-validation.js';
import { updateObject } from '../writes/update-object.js';
import { writeManagerOf } from '../writes/write-options.js';
import { dryRunOf, nameFromUrl, objectFromBody, sendObject, type HandlerContext } from '../request/index.js';
import { abandonAdmission, admitWrite } from '../writes/admit.js';
import type { ApiObject } from '../api-object.js';
import { createObject } from '../writes/create-object.js';
import { revalidate, validateForWrite } from '../writes/validate.js';
import { failedOnGuess } from '../written-objects.js';

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
  let object: ApiObject | undefined;
  // The first try starts from this server's last write of the object, if it has it: a guess, as
  // kube-apiserver's GuaranteedUpdate takes its cache's object. What fails because of the guess (a
  // stale version, the body's resourceVersion, a check against the old object: `failedOnGuess`)
  // is tried again from the store; a store failure is answered as it is (the write may have been
  // carried out). A dry run, and a Service (its addresses are reserved on the way), read the store.
  for (let guess = !dryRun && !ctx.services?.serves(type); ; guess = false) {
    // The kept version comes at once (no await); a read of the store is a promise.
    const read = guess ? ctx.reader.getForUpdate(type, info.namespace, name) : ctx.reader.get(type, info.namespace, name);
    const current = read instanceof Promise ? await read : read;
    if (!current) return createObject(ctx, body, { fields, manager });
    // The body's checks do not depend on the stored object: once.
    object ??= validateForWrite(ctx, body, fields);
    let updated: ApiObject;
    try {
      checkVersion(type, name, object, current);
      // Admission answers at once when no webhook or policy selects the write: not awaited then.
      const admission = admitWrite(ctx, { operation: 'UPDATE', object, oldObject: current, dryRun, optionsKind: 'UpdateOptions', revalidate: (o) => revalidate(ctx, o) });
      const admitted = (admission instanceof Promise ? await admission : admission)!;
      updated = await updateObject(ctx, admitted, current, manager, dryRun);
    } catch (error) {
      if (!ctx.reader.written.isGuess(current) || !failedOnGuess(error)) throw error;
      await abandonAdmission(ctx);
      continue;
    }
    return sendObject(ctx, 200, updated);
  }
}

/** The body's resourceVersion must be the stored one (none is a 422, a malformed one a 400, another one a 409). */
function checkVersion(type: ResourceType, name: string, object: ApiObject, current: ApiObject): void {
  const sent = object.metadata.resourceVersion;
  if (sent === undefined || sent === '') {
    throw invalid(type.kind, name, [{ reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'must be specified for an update' }]);
  }
  if (!/^\d+$/.test(sent)) throw badRequest(`invalid resourceVersion ${JSON.stringify(sent)}: must be a decimal integer`);
  if (sent !== current.metadata.resourceVersion) throw conflict({ group: type.group, resource: type.resource }, name, optimisticLockMessage);
}
