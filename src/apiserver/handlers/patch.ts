import { badRequest, builtinTypes, conflict, notFound, optimisticLockMessage, unsupportedMediaType } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { requireNestingWithin, requireStorableSize } from '../../encoding/index.js';
import { applyPatch } from '../writes/apply.js';
import { fieldValidationOf } from '../writes/field-validation.js';
import { applyJsonPatch, jsonPatchOperations } from '../writes/json-patch.js';
import { isJsonObject } from '../writes/json-value.js';
import { applyMergePatch } from '../writes/merge-patch.js';
import { applyStrategicMergePatch } from '../writes/strategic-merge.js';
import { updateObject } from '../writes/update-object.js';
import { triesAgain } from '../writes/conflict-retry.js';
import { writeManagerOf } from '../writes/write-options.js';
import { asTypedObject, decodeBody, dryRunOf, mediaTypeOf, nameFromUrl, sendObject, type HandlerContext, yieldIfLarge } from '../request/index.js';
import { abandonAdmission, admitWrite } from '../writes/admit.js';
import type { ApiObject } from '../api-object.js';
import { revalidate, validateForWrite } from '../writes/validate.js';
import { failedOnGuess } from '../written-objects.js';
import { splitWrite } from '../subresources/write-scope.js';

/** The PATCH media types, and the kind of patch each one is. */
export const PATCH_TYPES = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
} as const;

type PatchKind = (typeof PATCH_TYPES)[keyof typeof PATCH_TYPES];

const BUILTIN = new Set(builtinTypes);

/**
 * PATCH: the patch is applied to the stored object, the result goes through the checks of an
 * update and replaces it (200). A patch that sets `metadata.resourceVersion` is conditional on it
 * (a stale one → 409); others are retried on a concurrent write. Apply has its own path.
 */
export async function patch(ctx: HandlerContext): Promise<unknown> {
  const media = mediaTypeOf(ctx);
  const kind: PatchKind | undefined = PATCH_TYPES[media as keyof typeof PATCH_TYPES];
  if (!kind) throw unsupportedMediaType(media, Object.keys(PATCH_TYPES));
  if (kind === 'strategic' && !BUILTIN.has(ctx.type)) {
    throw unsupportedMediaType(media, ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
  }
  const dryRun = dryRunOf(ctx);
  const level = fieldValidationOf(ctx);
  if (kind === 'apply') return applyPatch(ctx, { dryRun, level });

  const manager = writeManagerOf(ctx, 'Update');
  const decoded = decodeBody(ctx);
  if (!decoded) throw badRequest('the request has no body: a patch document is required');
  const operations = kind === 'json' ? jsonPatchOperations(decoded.value) : undefined;
  if (kind !== 'json' && !isJsonObject(decoded.value)) throw badRequest(`a ${kind} patch must be a JSON object`);
  const conditional = setsResourceVersion(decoded.value);
  const { type, info } = ctx;
  const name = info.name!;
  const gr = { group: type.group, resource: type.resource };

  // The first try starts from this server's last write of the object, if it has it: a guess,
  // as kube-apiserver's GuaranteedUpdate takes its cache's object. What fails because of the guess
  // (a stale version, a precondition, a patch that no longer applies: `failedOnGuess`) is tried
  // again from the store, and is not one of the patch's attempts; a store failure is answered as
  // it is (the write may have been carried out: a second try would apply the patch twice). A dry
  // run, and a Service (its addresses are reserved on the way), read the store.
  let guess = !dryRun && !ctx.services?.serves(type);
  for (let attempt = 1; ; ) {
    const current = guess ? await ctx.reader.getForUpdate(type, info.namespace, name) : await ctx.reader.get(type, info.namespace, name);
    guess = false;
    if (!current) throw notFound(gr, name);
    let updated: ApiObject;
    try {
      updated = await patchOnce(current);
    } catch (error) {
      if (ctx.reader.written.isGuess(current) && failedOnGuess(error)) {
        await abandonAdmission(ctx);
        continue;
      }
      if (!isStorageError(error, 'Conflict')) throw error;
      if (conditional || !triesAgain(ctx, attempt)) throw conflict(gr, name, optimisticLockMessage);
      attempt++;
      continue;
    }
    return sendObject(ctx, 200, updated);
  }

  async function patchOnce(current: ApiObject): Promise<ApiObject> {
    // A test of the version is the JSON patch way of making the patch conditional: a stale one is a 409.
    if (operations?.some((op) => op.op === 'test' && op.path === '/metadata/resourceVersion' && op.value !== current.metadata.resourceVersion)) {
      throw conflict(gr, name, optimisticLockMessage);
    }
    const patched =
      operations !== undefined
        ? applyJsonPatch(current, operations, { kind: { group: type.group, kind: type.kind }, name })
        : kind === 'merge'
          ? applyMergePatch(current, decoded!.value)
          : applyStrategicMergePatch(current, decoded!.value, type.schema);
    // A JSON patch can add a value as deep as the limit at a path as deep: the walks after this
    // point (validation, field sets) must not see more than the limit.
    requireNestingWithin(patched, 'the patched object');
    requireStorableSize(patched);
    const object = nameFromUrl(asTypedObject(ctx, patched), name);
    if (object.metadata.name !== name) throw badRequest('a patch may not change the name of the object');
    const sent = object.metadata.resourceVersion;
    if (conditional && sent !== undefined && sent !== current.metadata.resourceVersion) throw conflict(gr, name, optimisticLockMessage);
    await yieldIfLarge(ctx);
    // Through a subresource, what the endpoint does not write is the stored object's and is not
    // checked (a status patch is validated on its metadata and status), as a PUT there is.
    const scoped = info.subresource === undefined ? object : splitWrite(ctx, object, current);
    const checked = validateForWrite(ctx, scoped, { duplicates: decoded!.duplicates, level });
    const admitted = (await admitWrite(ctx, { operation: 'UPDATE', object: checked, oldObject: current, dryRun, optionsKind: 'PatchOptions', revalidate: (o) => revalidate(ctx, o) }))!;
    return updateObject(ctx, admitted, current, manager, dryRun);
  }
}

/** Whether a patch document names `metadata.resourceVersion` (which makes it conditional). */
function setsResourceVersion(patchDoc: unknown): boolean {
  if (Array.isArray(patchDoc)) {
    return patchDoc.some((op) => isJsonObject(op) && op['path'] === '/metadata/resourceVersion');
  }
  const meta = isJsonObject(patchDoc) ? patchDoc['metadata'] : undefined;
  return isJsonObject(meta) && meta['resourceVersion'] !== undefined && meta['resourceVersion'] !== null;
}
