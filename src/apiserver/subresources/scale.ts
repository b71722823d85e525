import { badRequest, inMessage, conflict, invalid, notFound, optimisticLockMessage, unsupportedMediaType } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { decodeBody, dryRunOf, mediaTypeOf, sendObject, type HandlerContext } from '../request/index.js';
import { PATCH_TYPES } from '../handlers/patch.js';
import type { ApiObject } from '../api-object.js';
import { applyJsonPatch, jsonPatchOperations } from '../writes/json-patch.js';
import { isJsonObject } from '../writes/json-value.js';
import { applyMergePatch } from '../writes/merge-patch.js';
import { updateObject } from '../writes/update-object.js';
import { triesAgain } from '../writes/conflict-retry.js';
import { writeManagerOf } from '../writes/write-options.js';
import { scaleObject, scaleOf, type ResolvedScale } from './scale-paths.js';
import { withValueAt } from './write-scope.js';

/**
 * The `scale` subresource: the object seen as an autoscaling/v1 Scale (`spec.replicas`,
 * `status.replicas`, `status.selector`). Writes change only the replicas of the object (its
 * generation moves, as for any spec change); managedFields record them under the `scale`
 * subresource.
 */

type Scale = ReturnType<typeof scaleObject>;

const SCALE_KIND = { group: 'autoscaling', kind: 'Scale' };

function scaleTarget(ctx: HandlerContext): ResolvedScale {
  const scale = scaleOf(ctx.type);
  // Listed in `subresources` without paths to read: nothing to serve.
  if (!scale) throw notFound({ group: ctx.type.group, resource: `${ctx.type.resource}/scale` }, ctx.info.name!);
  return scale;
}

async function readCurrent(ctx: HandlerContext): Promise<ApiObject> {
  const { type, info } = ctx;
  const current = await ctx.reader.get(type, info.namespace, info.name!);
  if (!current) throw notFound({ group: type.group, resource: type.resource }, info.name!);
  return current;
}

export async function getScale(ctx: HandlerContext): Promise<unknown> {
  const scale = scaleTarget(ctx);
  return sendObject(ctx, 200, scaleObject(ctx.type, scale, await readCurrent(ctx)));
}

/** The replicas a Scale body asks for, and the resourceVersion it is conditional on (422/400 when malformed). */
function desired(name: string, body: unknown): { replicas: number; resourceVersion: string | undefined } {
  if (!isJsonObject(body)) throw badRequest('the request body must be a Scale object');
  if (body['kind'] !== undefined && body['kind'] !== 'Scale') throw badRequest(`the kind in the data (${inMessage(body['kind'])}) does not match the expected kind (Scale)`);
  if (body['apiVersion'] !== undefined && body['apiVersion'] !== 'autoscaling/v1') {
    throw badRequest(`the API version in the data (${inMessage(body['apiVersion'])}) does not match the expected API version (autoscaling/v1)`);
  }
  const meta = isJsonObject(body['metadata']) ? body['metadata'] : {};
  if (meta['name'] !== undefined && meta['name'] !== '' && meta['name'] !== name) {
    throw badRequest(`the name of the object (${inMessage(meta['name'])}) does not match the name on the URL (${name})`);
  }
  const rv = meta['resourceVersion'];
  if (rv !== undefined && rv !== null && typeof rv !== 'string') throw badRequest('metadata.resourceVersion must be a string');
  const replicas = isJsonObject(body['spec']) ? body['spec']['replicas'] : undefined;
  if (replicas === undefined || replicas === null) {
    throw invalid(SCALE_KIND, name, [{ reason: 'FieldValueRequired', field: 'spec.replicas', message: 'Required value' }]);
  }
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0 || replicas > 2 ** 31 - 1) {
    throw invalid(SCALE_KIND, name, [
      { reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0` },
    ]);
  }
  return { replicas, resourceVersion: rv === '' || rv === null ? undefined : (rv as string | undefined) };
}

/**
 * Writes the replicas `change` computes from the current Scale. A change that names a
 * resourceVersion is conditional on it (a stale one → 409); others are retried on a lost race.
 */
async function writeReplicas(ctx: HandlerContext, operation: 'Apply' | 'Update', change: (current: Scale) => ReturnType<typeof desired>): Promise<unknown> {
  const scale = scaleTarget(ctx);
  const { type, info } = ctx;
  const name = info.name!;
  const gr = { group: type.group, resource: type.resource };
  const dryRun = dryRunOf(ctx);
  const manager = writeManagerOf(ctx, operation);
  // An apply is recorded as the manager's write of spec.replicas; the scale endpoint has no fields of its own to own.
  const recorded = { ...manager, operation: 'Update' as const };
  for (let attempt = 1; ; attempt++) {
    const current = await readCurrent(ctx);
    const { replicas, resourceVersion } = change(scaleObject(type, scale, current));
    if (resourceVersion !== undefined && resourceVersion !== current.metadata.resourceVersion) throw conflict(gr, name, optimisticLockMessage);
    const next = withValueAt(current, scale.specReplicas, replicas) as ApiObject;
    try {
      return sendObject(ctx, 200, scaleObject(type, scale, await updateObject(ctx, next, current, recorded, dryRun)));
    } catch (error) {
      if (isStorageError(error, 'NotFound')) throw notFound(gr, name);
      if (!isStorageError(error, 'Conflict')) throw error;
      if (resourceVersion !== undefined || !triesAgain(ctx, attempt)) throw conflict(gr, name, optimisticLockMessage);
    }
  }
}

export async function updateScale(ctx: HandlerContext): Promise<unknown> {
  const decoded = decodeBody(ctx);
  if (!decoded) throw badRequest('the request has no body: a Scale is required');
  const wanted = desired(ctx.info.name!, decoded.value);
  return writeReplicas(ctx, 'Update', () => wanted);
}

/** PATCH of the Scale: every patch type; a strategic merge is a merge patch here (Scale has no lists); apply merges the configuration's replicas. */
export async function patchScale(ctx: HandlerContext): Promise<unknown> {
  const media = mediaTypeOf(ctx);
  const kind = PATCH_TYPES[media as keyof typeof PATCH_TYPES];
  if (!kind) throw unsupportedMediaType(media, Object.keys(PATCH_TYPES));
  const decoded = decodeBody(ctx);
  if (!decoded) throw badRequest('the request has no body: a patch document is required');
  const name = ctx.info.name!;
  const operations = kind === 'json' ? jsonPatchOperations(decoded.value) : undefined;
  if (kind !== 'json' && !isJsonObject(decoded.value)) throw badRequest(`a ${kind} patch must be a JSON object`);
  return writeReplicas(ctx, kind === 'apply' ? 'Apply' : 'Update', (current) => {
    const patched = operations ? applyJsonPatch(current, operations, { kind: SCALE_KIND, name }) : applyMergePatch(current, decoded.value);
    const wanted = desired(name, patched);
    // The current version came from the server: only a version the patch itself sets makes it conditional.
    const sets = operations
      ? operations.some((op) => op.path === '/metadata/resourceVersion')
      : isJsonObject(decoded.value) && isJsonObject(decoded.value['metadata']) && decoded.value['metadata']['resourceVersion'] != null;
    return { replicas: wanted.replicas, resourceVersion: sets ? wanted.resourceVersion : undefined };
  });
}
