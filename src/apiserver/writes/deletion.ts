import { conflict, rfc3339, FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type GroupResource } from '../../api/index.js';
import type { HandlerContext } from '../request/index.js';
import { isTerminating, markNamespaceTerminating, namespaceType } from '../namespaces.js';
import { encodeForStorage } from '../storage-codec.js';
import { objectKey } from '../object-keys.js';
import { type ApiObject } from '../api-object.js';
import type { DeleteOptions } from './delete-options.js';
import { stamped } from './update-object.js';

/** A pod's grace period when neither the request nor the pod gives one (Kubernetes' default). */
const DEFAULT_POD_GRACE_SECONDS = 30;

export type DeleteOutcome = { readonly removed: boolean; readonly object: ApiObject };


export function checkPreconditions(object: ApiObject, options: DeleteOptions, gr: GroupResource): void {
  const { uid, resourceVersion } = options.preconditions ?? {};
  const name = object.metadata.name!;
  if (uid != null && uid !== object.metadata.uid) {
    throw conflict(gr, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${object.metadata.uid}`);
  }
  if (resourceVersion != null && resourceVersion !== object.metadata.resourceVersion) {
    throw conflict(
      gr,
      name,
      `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${object.metadata.resourceVersion}`,
    );
  }
}

/**
 * The grace period a pod gets: it waits for its node agent to stop it, unless the request says 0,
 * or it never ran anywhere, or it has already finished.
 */
function podGraceSeconds(ctx: HandlerContext, object: ApiObject, options: DeleteOptions): number {
  if (ctx.type.group !== '' || ctx.type.resource !== 'pods') return 0;
  const spec = (object['spec'] ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = (object['status'] as { phase?: string } | undefined)?.phase;
  if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
  return options.gracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? DEFAULT_POD_GRACE_SECONDS;
}

/**
 * The first phase of a deletion, per object (the state table of the spec):
 * - Live, no finalizers, no grace period: removed.
 * - Live otherwise: Terminating — deletionTimestamp set (now, or now + grace for a pod waiting for
 *   its node agent), the propagation policy's finalizer added. It is removed once the last
 *   finalizer is gone (see update-object.ts).
 * - Terminating: unchanged, except that a shorter grace period for a pod shortens its wait (0
 *   removes it when no finalizer holds it).
 */
export async function deleteOne(ctx: HandlerContext, current: ApiObject, options: DeleteOptions): Promise<DeleteOutcome> {
  const { type, info } = ctx;
  checkPreconditions(current, options, { group: type.group, resource: type.resource });
  const key = objectKey(ctx.store, type, info.namespace ?? current.metadata.namespace, current.metadata.name!);
  const revision = Number(current.metadata.resourceVersion);
  const now = new Date();

  let marked: ApiObject | undefined;
  const meta = current.metadata;
  if (type === namespaceType(ctx.registry)) {
    if (isTerminating(current)) return { removed: false, object: current };
    marked = markNamespaceTerminating(current, now);
  } else if (meta.deletionTimestamp) {
    const running = meta.deletionGracePeriodSeconds ?? 0;
    const wanted = options.gracePeriodSeconds;
    if (wanted === undefined || running === 0 || wanted >= running) return { removed: false, object: current };
    if (wanted === 0 && (meta.finalizers?.length ?? 0) === 0) return remove(ctx, key, revision, current, options);
    marked = { ...current, metadata: { ...meta, deletionTimestamp: rfc3339(new Date(now.getTime() + wanted * 1000)), deletionGracePeriodSeconds: wanted } };
  } else {
    const added = options.propagationPolicy === 'Foreground' ? FOREGROUND_FINALIZER : options.propagationPolicy === 'Orphan' ? ORPHAN_FINALIZER : undefined;
    const finalizers = added && !(meta.finalizers ?? []).includes(added) ? [...(meta.finalizers ?? []), added] : meta.finalizers;
    const grace = podGraceSeconds(ctx, current, options);
    if ((finalizers?.length ?? 0) === 0 && grace === 0) return remove(ctx, key, revision, current, options);
    marked = {
      ...current,
      metadata: {
        ...meta,
        ...(finalizers ? { finalizers } : {}),
        deletionTimestamp: rfc3339(new Date(now.getTime() + grace * 1000)),
        deletionGracePeriodSeconds: grace,
      },
    };
  }
  if (options.dryRun) return { removed: false, object: marked };
  const kv = await ctx.store.update(key, encodeForStorage(marked, ctx.type), revision);
  return { removed: false, object: stamped(marked, kv.modRevision) };
}

async function remove(ctx: HandlerContext, key: string, revision: number, current: ApiObject, options: DeleteOptions): Promise<DeleteOutcome> {
  if (!options.dryRun) {
    await ctx.store.delete(key, revision);
    if (ctx.services?.serves(ctx.type)) await ctx.services.released(current);
  }
  return { removed: true, object: current };
}
