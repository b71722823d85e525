import { objectFromBody, type HandlerContext } from '../request/index.js';
import { createObject } from '../writes/create-object.js';
import { fieldValidationOf } from '../writes/field-validation.js';

/** POST on a collection: the body is a new object. */
export async function create(ctx: HandlerContext): Promise<unknown> {
  const { object, duplicates } = objectFromBody(ctx);
  return createObject(ctx, object, { fields: { duplicates, level: fieldValidationOf(ctx) } });
}
