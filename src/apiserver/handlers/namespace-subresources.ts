import { badRequest, conflict, invalid, notFound, optimisticLockMessage, type ResourceRegistry, type ResourceType } from '../../api/index.js';
import { namespaceType } from '../namespaces.js';
import type { ApiObject } from '../api-object.js';
import { fieldValidationOf } from '../writes/field-validation.js';
import { updateObject } from '../writes/update-object.js';
import { writeManagerOf } from '../writes/write-options.js';
import { dryRunOf, nameFromUrl, objectFromBody, sendObject, type Handler, type HandlerContext } from '../request/index.js';
import { validateForWrite } from '../writes/validate.js';
import type { RequestInfo } from '../request-info.js';

/**
 * The two subresources of a namespace the namespace controller writes through, as Kubernetes
 * serves them:
 * - `PUT namespaces/{name}/finalize` takes only `spec.finalizers` from the body. It is the one way
 *   to remove the `kubernetes` finalizer; a Terminating namespace left with no finalizer at all is
 *   removed from storage.
 * - `PUT namespaces/{name}/status` takes only `status` from the body (the deletion conditions).
 * Anything else is left as stored; the body's resourceVersion must be the stored one (409
 * otherwise), as for any update.
 */
export function namespaceSubresource(registry: ResourceRegistry, type: ResourceType, info: RequestInfo): Handler | undefined {
  if (type !== namespaceType(registry) || info.name === undefined) return undefined;
  if (info.subresource === 'finalize' && info.verb === 'update') return (ctx) => replacePart(ctx, takeFinalizers);
  if (info.subresource === 'status' && info.verb === 'update') return (ctx) => replacePart(ctx, takeStatus);
  return undefined;
}

type Part = (body: ApiObject, current: ApiObject) => ApiObject;

const takeFinalizers: Part = (body, current) => {
  const finalizers = (body['spec'] as { finalizers?: unknown } | undefined)?.finalizers;
  if (finalizers !== undefined && (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string' || f === ''))) {
    throw invalid('Namespace', current.metadata.name!, [
      { reason: 'FieldValueInvalid', field: 'spec.finalizers', message: 'must be a list of non-empty strings' },
    ]);
  }
  const spec = { ...((current['spec'] as object | undefined) ?? {}), finalizers: (finalizers as string[] | undefined) ?? [] };
  return { ...current, spec };
};

const takeStatus: Part = (body, current) => ({ ...current, status: body['status'] ?? {} });

async function replacePart(ctx: HandlerContext, part: Part): Promise<unknown> {
  const { type, info } = ctx;
  const name = info.name!;
  const decoded = objectFromBody(ctx);
  const body = nameFromUrl(decoded.object, name);
  if (body.metadata.name !== name) throw badRequest(`the name of the object (${body.metadata.name}) does not match the name in the URL (${name})`);
  const current = await ctx.reader.get(type, undefined, name);
  if (!current) throw notFound({ group: type.group, resource: type.resource }, name);
  const sent = body.metadata.resourceVersion;
  if (sent !== undefined && sent !== '' && sent !== current.metadata.resourceVersion) {
    throw conflict({ group: type.group, resource: type.resource }, name, optimisticLockMessage);
  }
  const next = validateForWrite(ctx, part(body, current), { duplicates: decoded.duplicates, level: fieldValidationOf(ctx) });
  const dryRun = dryRunOf(ctx);
  return sendObject(ctx, 200, await updateObject(ctx, next, current, writeManagerOf(ctx, 'Update'), dryRun));
}
