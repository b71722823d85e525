import { badRequest, conflict, notFound } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { isTerminating, markNamespaceTerminating, namespaceType } from '../namespaces.js';
import { encodeForStorage, objectKey, type ApiObject } from '../objects.js';
import { isDryRun, parseJsonBody } from './body.js';
import { queryParam, sendObject, type HandlerContext } from './context.js';
import { sendObjectList } from './list-body.js';
import { objectMatcher, selectionOf } from './selection.js';

interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  dryRun: boolean;
}

const POLICIES = new Set(['Orphan', 'Background', 'Foreground']);

/** DeleteOptions from the body (optional) and the query; malformed → 400. */
function deleteOptions(ctx: HandlerContext): DeleteOptions {
  const body = parseJsonBody(ctx) ?? {};
  const preconditions = body['preconditions'];
  if (preconditions !== undefined && (preconditions === null || typeof preconditions !== 'object')) {
    throw badRequest('preconditions must be an object');
  }
  const policy = body['propagationPolicy'] ?? queryParam(ctx, 'propagationPolicy');
  if (policy !== undefined && !POLICIES.has(String(policy))) {
    throw badRequest(`propagationPolicy must be one of Orphan, Background, Foreground, got ${JSON.stringify(policy)}`);
  }
  const grace = body['gracePeriodSeconds'] ?? queryParam(ctx, 'gracePeriodSeconds');
  if (grace !== undefined && !/^\d+$/.test(String(grace))) throw badRequest('gracePeriodSeconds must be a non-negative integer');
  const bodyDryRun = body['dryRun'];
  if (bodyDryRun !== undefined && !(Array.isArray(bodyDryRun) && bodyDryRun.every((v) => v === 'All'))) {
    throw badRequest('dryRun must be a list whose only accepted value is "All"');
  }
  return {
    ...(preconditions ? { preconditions: preconditions as DeleteOptions['preconditions'] } : {}),
    ...(policy ? { propagationPolicy: policy as DeleteOptions['propagationPolicy'] } : {}),
    ...(grace !== undefined ? { gracePeriodSeconds: Number(grace) } : {}),
    dryRun: isDryRun(queryParam(ctx, 'dryRun')) || (Array.isArray(bodyDryRun) && bodyDryRun.length > 0),
  };
}

function checkPreconditions(object: ApiObject, options: DeleteOptions, gr: { group: string; resource: string }): void {
  const { uid, resourceVersion } = options.preconditions ?? {};
  const name = object.metadata.name!;
  if (uid !== undefined && uid !== object.metadata.uid) {
    throw conflict(gr, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${object.metadata.uid}`);
  }
  if (resourceVersion !== undefined && resourceVersion !== object.metadata.resourceVersion) {
    throw conflict(
      gr,
      name,
      `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${object.metadata.resourceVersion}`,
    );
  }
}

type Outcome = { removed: true; object: ApiObject } | { removed: false; object: ApiObject };

/**
 * Deletes one object: a namespace, or an object holding finalizers, is only marked (deletion
 * timestamp set) and stays; anything else is removed from storage.
 */
async function deleteOne(ctx: HandlerContext, current: ApiObject, options: DeleteOptions): Promise<Outcome> {
  const { type, info } = ctx;
  const gr = { group: type.group, resource: type.resource };
  checkPreconditions(current, options, gr);
  const key = objectKey(ctx.store, type, info.namespace, current.metadata.name!);
  const revision = Number(current.metadata.resourceVersion);
  const stamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

  let marked: ApiObject | undefined;
  if (type === namespaceType(ctx.registry)) {
    if (isTerminating(current)) return { removed: false, object: current };
    marked = markNamespaceTerminating(current);
  } else if ((current.metadata.finalizers?.length ?? 0) > 0) {
    if (current.metadata.deletionTimestamp) return { removed: false, object: current };
    marked = { ...current, metadata: { ...current.metadata, deletionTimestamp: stamp(), deletionGracePeriodSeconds: 0 } };
  }
  if (marked) {
    if (options.dryRun) return { removed: false, object: marked };
    const kv = await ctx.store.update(key, encodeForStorage(marked), revision);
    return { removed: false, object: { ...marked, metadata: { ...marked.metadata, resourceVersion: String(kv.modRevision) } } };
  }
  if (!options.dryRun) await ctx.store.delete(key, revision);
  return { removed: true, object: current };
}

export async function deleteObject(ctx: HandlerContext): Promise<unknown> {
  const { type, info } = ctx;
  const options = deleteOptions(ctx);
  const current = await ctx.reader.get(type, info.namespace, info.name!);
  if (!current) throw notFound({ group: type.group, resource: type.resource }, info.name!);
  const outcome = await deleteOne(ctx, current, options);
  if (!outcome.removed) return sendObject(ctx, 200, outcome.object);
  return sendObject(ctx, 200, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: current.metadata.name, group: type.group, kind: type.resource, uid: current.metadata.uid },
  });
}

/** Deletes every object the selectors match; answers the list of what was deleted or marked. */
export async function deleteCollection(ctx: HandlerContext): Promise<unknown> {
  const matches = objectMatcher(ctx, selectionOf(ctx));
  const options = deleteOptions(ctx);
  const { items, revision } = await ctx.reader.list(ctx.type, ctx.info.namespace);
  const done: ApiObject[] = [];
  for (const item of items.filter(matches)) {
    const itemCtx = { ...ctx, info: { ...ctx.info, namespace: item.metadata.namespace, name: item.metadata.name } };
    try {
      done.push((await deleteOne(itemCtx, item, options)).object);
    } catch (error) {
      // An object deleted or changed meanwhile is someone else's to finish.
      if (!isStorageError(error, 'NotFound') && !isStorageError(error, 'Conflict')) throw error;
    }
  }
  return sendObjectList(ctx, done, revision);
}
