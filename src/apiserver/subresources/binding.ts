import { badRequest, inMessage, conflict, invalid, notFound, rfc3339, type FieldCause } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { decodeBody, dryRunOf, sendObject, type HandlerContext } from '../request/index.js';
import { encodeForStorage, encodedTextOf, keepStoredBytes } from '../storage-codec.js';
import { withAnswerText } from '../answer-text.js';
import { spliceResourceVersion } from '../served-object.js';
import { failedOnGuess } from '../written-objects.js';
import { stamped } from '../writes/update-object.js';
import { objectKey } from '../object-keys.js';
import { type ApiObject } from '../api-object.js';
import { isJsonObject } from '../writes/json-value.js';
import { triesAgain } from '../writes/conflict-retry.js';

/**
 * A core/v1 Binding: the scheduler's decision that a pod runs on a node. POSTed to
 * `pods/<name>/binding`, or (the legacy form) to `bindings` in the pod's namespace, where the
 * pod is the Binding's own name. It sets `spec.nodeName` once: a pod already bound, or being
 * deleted, is a 409 Conflict. The Binding's annotations are copied to the pod and its
 * PodScheduled condition becomes True.
 *
 * All of it is one compare-and-swap of the pod, so one binding is one storage write and one watch
 * event. As in Kubernetes (whose binding updates the stored pod directly), it is not a write
 * through the pod endpoints: no managedFields entry is recorded for it — which also spares the
 * scheduler's hot path the two field-set walks of the whole pod that an entry costs.
 */

const BINDING_KIND = { group: '', kind: 'Binding' };

interface Binding {
  readonly name: string;
  readonly node: string;
  readonly uid: string | undefined;
  readonly annotations: Readonly<Record<string, string>>;
}

function bindingOf(ctx: HandlerContext): Binding {
  const decoded = decodeBody(ctx);
  if (!decoded || !isJsonObject(decoded.value)) throw badRequest('the request body must be a Binding object');
  const body = decoded.value;
  if (body['kind'] !== undefined && body['kind'] !== 'Binding') throw badRequest(`the kind in the data (${inMessage(body['kind'])}) does not match the expected kind (Binding)`);
  if (body['apiVersion'] !== undefined && body['apiVersion'] !== 'v1') throw badRequest(`the API version in the data (${inMessage(body['apiVersion'])}) does not match the expected API version (v1)`);
  const meta = isJsonObject(body['metadata']) ? body['metadata'] : {};
  if (meta['namespace'] !== undefined && meta['namespace'] !== '' && meta['namespace'] !== ctx.info.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const urlName = ctx.info.subresource === 'binding' ? ctx.info.name : undefined;
  const name = typeof meta['name'] === 'string' && meta['name'] !== '' ? meta['name'] : urlName;
  if (urlName !== undefined && name !== urlName) throw badRequest('name in URL does not match name in Binding object');
  const target = isJsonObject(body['target']) ? body['target'] : {};
  const causes: FieldCause[] = [];
  if (!name) causes.push({ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' });
  if (target['kind'] !== undefined && target['kind'] !== '' && target['kind'] !== 'Node') {
    causes.push({ reason: 'FieldValueNotSupported', field: 'target.kind', message: `Unsupported value: ${JSON.stringify(target['kind'])}: supported values: "Node"` });
  }
  if (typeof target['name'] !== 'string' || target['name'] === '') causes.push({ reason: 'FieldValueRequired', field: 'target.name', message: 'Required value' });
  const annotations = meta['annotations'];
  if (annotations !== undefined && !(isJsonObject(annotations) && Object.values(annotations).every((v) => typeof v === 'string'))) {
    causes.push({ reason: 'FieldValueInvalid', field: 'metadata.annotations', message: 'Invalid value: must be a map of strings' });
  }
  if (causes.length > 0) throw invalid(BINDING_KIND, name ?? '', causes);
  return {
    name: name!,
    node: target['name'] as string,
    uid: typeof meta['uid'] === 'string' && meta['uid'] !== '' ? meta['uid'] : undefined,
    annotations: (annotations ?? {}) as Record<string, string>,
  };
}

function bound(pod: ApiObject, binding: Binding, now: string): ApiObject {
  const status = (isJsonObject(pod['status']) ? pod['status'] : {}) as { conditions?: { type: string }[] };
  const conditions = (status.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
  const annotations = { ...(pod.metadata.annotations ?? {}), ...binding.annotations };
  // The spec changes (a pod is bound only while its nodeName is empty), so the generation moves, as
  // prepareForUpdate would find by comparing the whole spec; uid, creation and deletion state are
  // the stored pod's own.
  const generation = (pod.metadata.generation ?? 1) + 1;
  return {
    ...pod,
    metadata: { ...pod.metadata, generation, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) },
    spec: { ...(pod['spec'] as object), nodeName: binding.node },
    status: { ...status, conditions: [...conditions, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now }] },
  };
}

export async function bindPod(ctx: HandlerContext): Promise<unknown> {
  const binding = bindingOf(ctx);
  const dryRun = dryRunOf(ctx);
  const pods = { group: '', resource: 'pods' };
  const gr = { group: '', resource: 'pods/binding' };
  const key = objectKey(ctx.store, ctx.type, ctx.info.namespace, binding.name);
  // The first try starts from this server's last write of the pod (its create, as a rule: the
  // scheduler binds a pod moments after the ReplicaSet made it), a guess the store's
  // compare-and-swap checks, as an update's does (written-objects.ts). What the guess refuses (a
  // stale version, a uid or a node that the store may not hold) is tried again from the store and
  // is not one of the attempts. A dry run reads the store: nothing would check the guess.
  let guess = !dryRun;
  for (let attempt = 1; ; ) {
    const pod = guess ? await ctx.reader.getForUpdate(ctx.type, ctx.info.namespace, binding.name) : await ctx.reader.get(ctx.type, ctx.info.namespace, binding.name);
    const guessed = guess && pod !== undefined && ctx.reader.written.isGuess(pod);
    guess = false;
    try {
      await bindOnce(pod);
      return sendObject(ctx, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    } catch (error) {
      if (guessed && (failedOnGuess(error) || isStorageError(error, 'Conflict') || isStorageError(error, 'NotFound'))) {
        ctx.reader.written.forget(ctx.type, key);
        continue;
      }
      if (isStorageError(error, 'NotFound')) throw notFound(pods, binding.name);
      if (!isStorageError(error, 'Conflict') || !triesAgain(ctx, attempt)) throw error;
      attempt++;
    }
  }

  async function bindOnce(pod: ApiObject | undefined): Promise<void> {
    if (!pod) throw notFound(pods, binding.name);
    if (binding.uid !== undefined && binding.uid !== pod.metadata.uid) {
      throw conflict(gr, binding.name, `Precondition failed: UID in precondition: ${binding.uid}, UID in object meta: ${pod.metadata.uid}`);
    }
    if (pod.metadata.deletionTimestamp) throw conflict(gr, binding.name, `pod ${binding.name} is being deleted, cannot be assigned to a host`);
    const nodeName = (pod['spec'] as { nodeName?: string } | undefined)?.nodeName;
    if (nodeName) throw conflict(gr, binding.name, `pod ${binding.name} is already assigned to node ${JSON.stringify(nodeName)}`);
    // The pod is written as a whole (spec and status), not through one endpoint's part of it.
    const next = bound(pod, binding, rfc3339());
    if (dryRun) return;
    const bytes = encodeForStorage(next, ctx.type, true);
    // Before the write: the watch cache takes the text with the write's event, which may come first.
    const text = encodedTextOf(bytes);
    const kv = await ctx.store.update(key, bytes, Number(pod.metadata.resourceVersion));
    // Kept as the next write's starting point: the node's first status patch of the pod follows.
    const answerText = text === undefined ? undefined : spliceResourceVersion(text, kv.modRevision);
    if (answerText === undefined) return ctx.reader.written.forget(ctx.type, key);
    const kept = withAnswerText(stamped(next, kv.modRevision), answerText);
    keepStoredBytes(kept, bytes);
    ctx.reader.written.set(ctx.type, key, kept, bytes.byteLength);
  }
}
