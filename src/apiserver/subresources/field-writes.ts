import { badRequest, conflict, notFound, optimisticLockMessage } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { dryRunOf, nameFromUrl, objectFromBody, sendObject, type HandlerContext } from '../request/index.js';
import { admitWrite } from '../writes/admit.js';
import { revalidate, validateForWrite } from '../writes/validate.js';
import { fieldValidationOf } from '../writes/field-validation.js';
import { updateObject } from '../writes/update-object.js';
import { triesAgain } from '../writes/conflict-retry.js';
import { writeManagerOf } from '../writes/write-options.js';
import { splitWrite } from './write-scope.js';

/**
 * PUT on a subresource that writes part of its object (`status`, `finalize`, ...): the body is
 * the whole object, of which the endpoint takes (and checks) only its part (write-scope.ts); the
 * rest stays as stored. Unlike PUT on the object it never creates (404), and, as Kubernetes allows for
 * these endpoints, a body without a resourceVersion is an unconditional write.
 */
export async function updateThroughSubresource(ctx: HandlerContext): Promise<unknown> {
  const { type, info } = ctx;
  const name = info.name!;
  const gr = { group: type.group, resource: type.resource };
  const dryRun = dryRunOf(ctx);
  const decoded = objectFromBody(ctx);
  const manager = writeManagerOf(ctx, 'Update');
  const body = nameFromUrl(decoded.object, name);
  const fields = { duplicates: decoded.duplicates, level: fieldValidationOf(ctx) };
  const sent = body.metadata.resourceVersion;
  if (sent !== undefined && sent !== '' && !/^\d+$/.test(sent)) throw badRequest(`invalid resourceVersion ${JSON.stringify(sent)}: must be a decimal integer`);
  const conditional = sent !== undefined && sent !== '';

  for (let attempt = 1; ; attempt++) {
    const current = await ctx.reader.get(type, info.namespace, name);
    if (!current) throw notFound(gr, name);
    if (conditional && sent !== current.metadata.resourceVersion) throw conflict(gr, name, optimisticLockMessage);
    // What the endpoint does not write is not checked either: it is the stored object's, as in Kubernetes.
    const object = validateForWrite(ctx, splitWrite(ctx, body, current), fields);
    // Admission sees subresource writes as PATCH on them already does (CertificateApproval, webhooks matching `x/status`).
    const admitted = (await admitWrite(ctx, { operation: 'UPDATE', object, oldObject: current, dryRun, optionsKind: 'UpdateOptions', revalidate: (o) => revalidate(ctx, o) }))!;
    try {
      return sendObject(ctx, 200, await updateObject(ctx, admitted, current, manager, dryRun));
    } catch (error) {
      if (isStorageError(error, 'NotFound')) throw notFound(gr, name);
      if (!isStorageError(error, 'Conflict')) throw error;
      if (conditional || !triesAgain(ctx, attempt)) throw conflict(gr, name, optimisticLockMessage);
    }
  }
}
