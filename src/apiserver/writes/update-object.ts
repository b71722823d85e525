import { invalid, withDefaults } from '../../api/index.js';
import type { HandlerContext } from '../request/index.js';
import { namespaceType } from '../namespaces.js';
import { objectKey } from '../object-keys.js';
import { prepareForUpdate } from './prepare.js';
import { type ApiObject } from '../api-object.js';
import { managedFieldsAfterUpdate, type WriteManager } from './managed-fields.js';
import { isStatusWrite, splitWrite } from '../subresources/write-scope.js';
import { strategyForUpdate } from './strategy.js';
import { certificateSigningRequestOnUpdate, isCertificateSigningRequests } from './certificate-signing-requests.js';
import { bytesToStore } from './unchanged.js';
import { asServed, encodedSourceOf, keepStoredBytes } from '../storage-codec.js';
import { isStorageError } from '../../storage/index.js';
import { StaleGuess } from '../written-objects.js';
import { answerTextFor } from '../served-object.js';
import { withAnswerText } from '../answer-text.js';
import { yieldIfLarge } from '../request/index.js';

/**
 * The end of every write to an existing object (PUT, PATCH, apply): the server-owned metadata
 * comes from `current`, managedFields are updated, and the result replaces `current` if nobody
 * wrote in between (the store's compare-and-swap; a Conflict otherwise). A Terminating object
 * whose last finalizer this write removes is removed from storage instead: the second phase of
 * deletion. A write whose result is the stored object stores nothing and answers the stored
 * object, version and all (unchanged.ts). With `dryRun` nothing is written.
 *
 * `current` may be the version this server last wrote (`ctx.reader.getForUpdate`), a guess: when
 * the store holds another version (a Conflict or NotFound), or the write changes nothing and the
 * store's version is not the guess's, this throws `StaleGuess` and the caller starts again from
 * the store, as kube-apiserver's GuaranteedUpdate does with a cached object. Every version this
 * writes is kept as the next write's guess.
 */
export async function updateObject(
  ctx: HandlerContext,
  next: ApiObject,
  current: ApiObject,
  manager: WriteManager,
  dryRun: boolean,
): Promise<ApiObject> {
  const { type, info } = ctx;
  const name = current.metadata.name!;
  if (current.metadata.deletionTimestamp) {
    const before = new Set(current.metadata.finalizers ?? []);
    const added = (next.metadata.finalizers ?? []).filter((f) => !before.has(f));
    if (added.length > 0) {
      throw invalid(type.kind, name, [
        { reason: 'FieldValueForbidden', field: 'metadata.finalizers', message: `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}` },
      ]);
    }
  }
  // Defaults before prepareForUpdate: a body without them is the same spec as the stored one
  // that has them (no generation bump).
  const split = splitWrite(ctx, next, current);
  const checked = isCertificateSigningRequests(type) ? certificateSigningRequestOnUpdate(split, current) : split;
  const defaulted = withDefaults(type, strategyForUpdate(type, checked, current, isStatusWrite(ctx)));
  const turn = yieldIfLarge(ctx);
  if (turn) await turn;
  const object = managedFieldsAfterUpdate(type, prepareForUpdate(defaulted, current), current, manager);
  const key = objectKey(ctx.store, type, info.namespace, name);
  const revision = Number(current.metadata.resourceVersion);
  const guessed = ctx.reader.written.isGuess(current);
  if (isRemovable(ctx, object)) {
    if (dryRun) return object;
    ctx.reader.written.forget(type, key);
    let kv;
    try {
      kv = await ctx.store.delete(key, revision);
    } catch (error) {
      throw guessed && isStaleRevision(error) ? new StaleGuess() : error;
    }
    if (ctx.services?.serves(type)) await ctx.services.released(current);
    return stamped(object, kv.modRevision);
  }
  const service = ctx.services?.serves(type) ? await ctx.services.prepare(object, current, dryRun) : undefined;
  // The allocator carries the stored cluster IPs and node ports into a body that left them out:
  // the generation is judged again on that spec (a PUT without them changes nothing).
  const stored = asServed(service ? prepareForUpdate(service.object, current) : object, type);
  const bytes = bytesToStore(type, stored, current);
  if (bytes === undefined) {
    await service?.rollback();
    // Nothing to write says nothing of the store: a guess is confirmed by the store's version.
    if (guessed && (await ctx.store.get(key))?.modRevision !== revision) {
      ctx.reader.written.forget(type, key);
      throw new StaleGuess();
    }
    return current;
  }
  if (dryRun) return stored;
  // Before the write: the watch cache takes the text with the write's event, which may come first.
  const source = type.conversion || (type.storageVersion !== undefined && type.storageVersion !== type.version) ? undefined : encodedSourceOf(bytes);
  let kv;
  try {
    kv = await ctx.store.update(key, bytes, revision);
  } catch (error) {
    await service?.rollback();
    if (guessed && isStaleRevision(error)) {
      ctx.reader.written.forget(type, key);
      throw new StaleGuess();
    }
    throw error;
  }
  // Not `await service?.commit()`: for every other type that is a trip through the microtask queue for nothing.
  if (service) await service.commit();
  // The answer is the stored text with its version, as a GET sends it: not encoded again (the
  // cache's own string of it when it has taken the write already).
  const answerText = source === undefined ? undefined : answerTextFor(source, kv.modRevision);
  const answer = withAnswerText(stamped(stored, kv.modRevision), answerText);
  // Kept as the next write's starting point, with the bytes it was stored as (unchanged.ts compares them).
  if (answerText !== undefined) {
    keepStoredBytes(answer, bytes);
    ctx.reader.written.set(type, key, answer, bytes.byteLength);
  } else ctx.reader.written.forget(type, key);
  return answer;
}

/** The store holds another version than the one the write was checked against, or none. */
const isStaleRevision = (error: unknown) => isStorageError(error, 'Conflict') || isStorageError(error, 'NotFound');

/** Terminating, with no finalizer left and no grace period running: storage may let it go. */
export function isRemovable(ctx: Pick<HandlerContext, 'type' | 'registry'>, object: ApiObject): boolean {
  const meta = object.metadata;
  if (!meta.deletionTimestamp || (meta.finalizers?.length ?? 0) > 0 || (meta.deletionGracePeriodSeconds ?? 0) > 0) return false;
  if (ctx.type === namespaceType(ctx.registry)) {
    return ((object['spec'] as { finalizers?: string[] } | undefined)?.finalizers?.length ?? 0) === 0;
  }
  return true;
}

export const stamped = (object: ApiObject, revision: number): ApiObject => ({
  ...object,
  metadata: { ...object.metadata, resourceVersion: String(revision) },
});
