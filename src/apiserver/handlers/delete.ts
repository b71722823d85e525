import { badRequest, isStatusError, notFound } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { admitWrite } from '../writes/admit.js';
import type { Admitted } from '../admission/index.js';
import { objectKey } from '../object-keys.js';
import { type ApiObject } from '../api-object.js';
import { deleteOptionsOf, type DeleteOptions } from '../writes/delete-options.js';
import { deleteOne } from '../writes/deletion.js';
import { sendObject, type HandlerContext, sendObjectList, objectMatcher, selectionOf } from '../request/index.js';

const UNSAFE = 'ignoreStoreReadErrorWithClusterBreakingPotential';

function sendDeleted(ctx: HandlerContext, object: Pick<ApiObject, 'metadata'>): unknown {
  const { type } = ctx;
  return sendObject(ctx, 200, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: object.metadata.name, group: type.group, kind: type.resource, ...(object.metadata.uid ? { uid: object.metadata.uid } : {}) },
  });
}

export async function deleteObject(ctx: HandlerContext): Promise<unknown> {
  const { type, info } = ctx;
  const options = deleteOptionsOf(ctx);
  if (options.unsafeCorruptDelete) return deleteCorrupt(ctx);
  // A delete without a resourceVersion precondition is not the client's compare-and-swap: when
  // a concurrent write moves the object between our read and our delete, read it again.
  const retries = options.preconditions?.resourceVersion === undefined ? UNCONDITIONAL_RETRIES : 0;
  for (let attempt = 0; ; attempt++) {
    const current = await ctx.reader.get(type, info.namespace, info.name!);
    if (!current) throw notFound({ group: type.group, resource: type.resource }, info.name!);
    await admitDelete(ctx, current, options);
    let outcome: Awaited<ReturnType<typeof deleteOne>>;
    try {
      outcome = await deleteOne(ctx, current, options);
    } catch (error) {
      if (isStorageError(error, 'Conflict') && attempt < retries) continue;
      throw error;
    }
    if (outcome.removed) return sendDeleted(ctx, current);
    // Kubernetes' legacy answer for a delete that did not finish and asked not to orphan.
    return sendObject(ctx, options.orphanDependents === false ? 202 : 200, outcome.object);
  }
}

const UNCONDITIONAL_RETRIES = 5;

/** Admission of a delete: the object as stored, the options as AdmissionReview carries them. */
function admitDelete(ctx: HandlerContext, current: ApiObject, options: DeleteOptions): Admitted {
  const { dryRun: _dryRun, unsafeCorruptDelete: _unsafe, ...given } = options;
  return admitWrite(ctx, { operation: 'DELETE', oldObject: current, dryRun: options.dryRun, optionsKind: 'DeleteOptions', options: given });
}

/**
 * The unsafe delete of an object storage cannot decode: tried as a normal read first; a readable
 * object is refused (nothing deleted), a corrupt one is removed whatever its finalizers.
 */
async function deleteCorrupt(ctx: HandlerContext): Promise<unknown> {
  const { type, info } = ctx;
  const name = info.name!;
  let readable: ApiObject | undefined;
  try {
    readable = await ctx.reader.get(type, info.namespace, name);
  } catch (error) {
    if (!isStatusError(error, 'StorageReadError')) throw error;
    await ctx.store.forceDelete(objectKey(ctx.store, type, info.namespace, name));
    return sendDeleted(ctx, { metadata: { name } });
  }
  if (!readable) throw notFound({ group: type.group, resource: type.resource }, name);
  throw badRequest(`${UNSAFE} is exclusively used to delete corrupt objects and ${type.resource} ${JSON.stringify(name)} is readable: try again without it`);
}

/** Deletes every object the selectors match, each by the rules of a single delete; answers the list of what was deleted or marked. */
export async function deleteCollection(ctx: HandlerContext): Promise<unknown> {
  const matches = objectMatcher(ctx, selectionOf(ctx));
  const options: DeleteOptions = deleteOptionsOf(ctx);
  if (options.unsafeCorruptDelete) throw badRequest(`${UNSAFE} is not supported on deletecollection: delete the corrupt object by name`);
  const { items, revision } = await ctx.reader.list(ctx.type, ctx.info.namespace);
  const done: ApiObject[] = [];
  for (const item of items.filter(matches)) {
    const itemCtx = { ...ctx, info: { ...ctx.info, namespace: item.metadata.namespace, name: item.metadata.name } };
    try {
      await admitDelete(itemCtx, item, options);
      done.push((await deleteOne(itemCtx, item, options)).object);
    } catch (error) {
      // An object deleted or changed meanwhile is someone else's to finish.
      if (!isStorageError(error, 'NotFound') && !isStorageError(error, 'Conflict')) throw error;
    }
  }
  return sendObjectList(ctx, done, revision);
}
