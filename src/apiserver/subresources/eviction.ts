import { badRequest, inMessage, forbidden, notFound, StatusError, rfc3339, type ResourceType } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { decodeBody, dryRunOf, sendObject, type HandlerContext } from '../request/index.js';
import { encodeForStorage } from '../storage-codec.js';
import { objectKey } from '../object-keys.js';
import { type ApiObject } from '../api-object.js';
import type { DeleteOptions, PropagationPolicy } from '../writes/delete-options.js';
import { deleteOne } from '../writes/deletion.js';
import { isJsonObject } from '../writes/json-value.js';
import { computeStatus, isReady, isStale, selects, specOf, withAllowedCondition, type BudgetStatus } from './disruption-budget.js';
import { managedFieldsAfterUpdate } from '../writes/managed-fields.js';

/**
 * The Pod `eviction` subresource: POST a policy/v1 (or v1beta1) Eviction and the pod is deleted
 * with the Eviction's deleteOptions — unless that would break the PodDisruptionBudget that
 * guards it (429, retried by `kubectl drain`). Kubernetes' rules (its EvictionREST):
 *
 * 1. A pod that has finished (Succeeded, Failed), is Pending or is already terminating has
 *    disrupted nothing more by going: it is deleted without looking at budgets (a Pending one
 *    only at the version read, so it cannot become Running and slip past its budget).
 * 2. No budget selects it: deleted. More than one: 500, which Kubernetes does not support.
 * 3. A pod that is not Ready is deleted without spending the budget when the budget's policy is
 *    AlwaysAllow, or (IfHealthyBudget, the default) when the application is healthy enough.
 * 4. Otherwise the budget must allow a disruption: `disruptionsAllowed` is decremented and the pod
 *    recorded in `disruptedPods` (a write of the budget's status, conditional on its version),
 *    then the pod is deleted. None allowed: 429 TooManyRequests, cause DisruptionBudget.
 *
 * A budget whose status does not reflect its spec (`observedGeneration` behind `generation`, or
 * never written: the disruption controller has not looked at it yet, or no controller manager
 * runs) gets its status computed from the namespace's pods at the time of the eviction
 * (disruption-budget.ts) and written with the decrement — where Kubernetes would answer 429
 * "still being processed": an API server without a controller manager still honours budgets.
 */

const EVICTION_VERSIONS = new Set(['policy/v1', 'policy/v1beta1']);
const MAX_DISRUPTED_PODS = 2000;
const ATTEMPTS = 5;
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";
const EVICTION_MANAGER = { manager: 'svc-apiserver', operation: 'Update' as const, subresource: 'status' };

interface Eviction {
  readonly options: DeleteOptions;
}

const POLICIES = new Set(['Orphan', 'Background', 'Foreground']);

/** The Eviction's deleteOptions, checked as a delete's are (400 for anything malformed). */
function deleteOptionsOf(raw: unknown, queryDryRun: boolean): DeleteOptions {
  if (raw === undefined || raw === null) return { dryRun: queryDryRun, unsafeCorruptDelete: false };
  if (!isJsonObject(raw)) throw badRequest('deleteOptions must be an object');
  const pre = raw['preconditions'];
  if (pre !== undefined && pre !== null) {
    if (!isJsonObject(pre)) throw badRequest('deleteOptions.preconditions must be an object');
    for (const key of ['uid', 'resourceVersion']) {
      if (pre[key] !== undefined && pre[key] !== null && typeof pre[key] !== 'string') throw badRequest(`deleteOptions.preconditions.${key} must be a string`);
    }
  }
  const grace = raw['gracePeriodSeconds'];
  if (grace !== undefined && grace !== null && (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0)) {
    throw badRequest('deleteOptions.gracePeriodSeconds must be a non-negative integer');
  }
  const policy = raw['propagationPolicy'];
  if (policy !== undefined && policy !== null && !POLICIES.has(String(policy))) {
    throw badRequest(`deleteOptions.propagationPolicy must be one of Orphan, Background, Foreground, got ${JSON.stringify(policy)}`);
  }
  const orphan = raw['orphanDependents'];
  if (orphan !== undefined && orphan !== null && typeof orphan !== 'boolean') throw badRequest('deleteOptions.orphanDependents must be a boolean');
  if (typeof orphan === 'boolean' && policy != null) throw badRequest('deleteOptions: orphanDependents and propagationPolicy cannot both be set');
  const dryRun = raw['dryRun'];
  if (dryRun !== undefined && dryRun !== null && !(Array.isArray(dryRun) && dryRun.every((v) => v === 'All'))) {
    throw badRequest('deleteOptions.dryRun must be a list whose only accepted value is "All"');
  }
  if (raw['ignoreStoreReadErrorWithClusterBreakingPotential'] === true) throw badRequest('ignoreStoreReadErrorWithClusterBreakingPotential is not supported on eviction');
  const resolved = (policy as PropagationPolicy | null | undefined) ?? (typeof orphan === 'boolean' ? (orphan ? 'Orphan' : 'Background') : undefined);
  return {
    ...(isJsonObject(pre) ? { preconditions: pre as DeleteOptions['preconditions'] } : {}),
    ...(resolved ? { propagationPolicy: resolved } : {}),
    ...(typeof orphan === 'boolean' ? { orphanDependents: orphan } : {}),
    ...(typeof grace === 'number' ? { gracePeriodSeconds: grace } : {}),
    dryRun: queryDryRun || (Array.isArray(dryRun) && dryRun.length > 0),
    unsafeCorruptDelete: false,
  };
}

function evictionOf(ctx: HandlerContext): Eviction {
  const decoded = decodeBody(ctx);
  if (!decoded || !isJsonObject(decoded.value)) throw badRequest('the request body must be an Eviction object');
  const body = decoded.value;
  if (body['kind'] !== undefined && body['kind'] !== 'Eviction') throw badRequest(`the kind in the data (${inMessage(body['kind'])}) does not match the expected kind (Eviction)`);
  if (body['apiVersion'] !== undefined && (typeof body['apiVersion'] !== 'string' || !EVICTION_VERSIONS.has(body['apiVersion']))) {
    throw badRequest(`the API version in the data (${inMessage(body['apiVersion'])}) does not match the expected API version (policy/v1)`);
  }
  const meta = isJsonObject(body['metadata']) ? body['metadata'] : {};
  if (meta['name'] !== ctx.info.name) throw badRequest('name in URL does not match name in Eviction object');
  if (meta['namespace'] !== undefined && meta['namespace'] !== '' && meta['namespace'] !== ctx.info.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  return { options: deleteOptionsOf(body['deleteOptions'], dryRunOf(ctx)) };
}

const phaseOf = (pod: ApiObject) => (pod['status'] as { phase?: string } | undefined)?.phase;

/** Rule 1: a pod whose going disrupts nothing more. */
const canIgnoreBudgets = (pod: ApiObject) => {
  const phase = phaseOf(pod);
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.metadata.deletionTimestamp !== undefined;
};

/** Whether the delete must be at the version read: only pods that may still become Ready and count. */
const atReadVersion = (pod: ApiObject) => {
  const phase = phaseOf(pod);
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp !== undefined);
};

function tooManyRequests(message: string, retryAfterSeconds: number, cause: string): StatusError {
  return new StatusError({
    reason: 'TooManyRequests',
    message,
    details: { ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}), causes: [{ reason: 'DisruptionBudget', message: cause }] },
  });
}

class Retry extends Error {}

export async function evictPod(ctx: HandlerContext): Promise<unknown> {
  const { options } = evictionOf(ctx);
  const { info } = ctx;
  const name = info.name!;
  const podCtx: HandlerContext = { ...ctx, info: { ...info, subresource: undefined, verb: 'delete' } };
  for (let attempt = 1; ; attempt++) {
    try {
      await evictOnce(ctx, podCtx, name, options);
      return sendObject(ctx, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    } catch (error) {
      const lost = error instanceof Retry || isStorageError(error, 'Conflict');
      if (!lost) throw error;
      // The precondition the client gave is the client's: its conflict is its answer.
      if (options.preconditions?.resourceVersion != null && !(error instanceof Retry)) throw error;
      if (attempt >= ATTEMPTS) throw new StatusError({ reason: 'TooManyRequests', message: 'too many concurrent writes to the pod or its disruption budget; try the eviction again', details: { retryAfterSeconds: 1 } });
    }
  }
}

async function evictOnce(ctx: HandlerContext, podCtx: HandlerContext, name: string, options: DeleteOptions): Promise<void> {
  const pod = await ctx.reader.get(ctx.type, ctx.info.namespace, name);
  if (!pod) throw notFound({ group: '', resource: 'pods' }, name);
  const atVersion = (): DeleteOptions =>
    options.preconditions?.resourceVersion != null || !atReadVersion(pod)
      ? options
      : { ...options, preconditions: { ...options.preconditions, resourceVersion: pod.metadata.resourceVersion! } };
  const remove = async (opts: DeleteOptions) => {
    try {
      await deleteOne(podCtx, pod, opts);
    } catch (error) {
      // Our own version precondition failed: the pod changed, decide again.
      if (opts !== options && error instanceof StatusError && error.reason === 'Conflict') throw new Retry();
      if (isStorageError(error, 'NotFound')) throw notFound({ group: '', resource: 'pods' }, name);
      throw error;
    }
  };
  if (canIgnoreBudgets(pod)) return remove(atVersion());

  const budgetType = ctx.registry.lookup('policy', 'v1', 'poddisruptionbudgets');
  const budgets = budgetType ? (await ctx.reader.list(budgetType, ctx.info.namespace)).items.filter((pdb) => selects(pdb, pod)) : [];
  if (budgets.length === 0) return remove(options);
  if (budgets.length > 1) {
    throw new StatusError({
      reason: 'InternalError',
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      details: { causes: [{ message: `budgets ${budgets.map((b) => b.metadata.name).join(', ')} all select pod ${name}` }] },
    });
  }
  const pdb = budgets[0]!;
  const now = new Date();
  const stale = isStale(pdb);
  const status = stale ? computeStatus(pdb, (await ctx.reader.list(ctx.type, ctx.info.namespace)).items, now) : ((pdb['status'] ?? {}) as BudgetStatus);

  if (!isReady(pod)) {
    if (specOf(pdb).unhealthyPodEvictionPolicy === 'AlwaysAllow') return remove(atVersion());
    if (status.currentHealthy >= status.desiredHealthy && status.desiredHealthy > 0) return remove(atVersion());
  }
  const pdbName = pdb.metadata.name!;
  const allowed = status.disruptionsAllowed ?? 0;
  if (allowed < 0) throw forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, pdbName, 'pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS) {
    throw forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, pdbName, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if (allowed === 0) {
    throw tooManyRequests(VIOLATION, 0, `The disruption budget ${pdbName} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`);
  }
  if (!options.dryRun) {
    const spent: BudgetStatus = withAllowedCondition(
      { ...status, disruptionsAllowed: allowed - 1, disruptedPods: { ...(status.disruptedPods ?? {}), [name]: rfc3339(now) } },
      pdb.metadata.generation ?? 1,
      now,
    );
    await writeBudgetStatus(ctx, budgetType!, pdb, spent);
  }
  return remove(atVersion());
}

/** The budget's new status, written only if nobody wrote the budget since it was read (else the eviction starts over). */
async function writeBudgetStatus(ctx: HandlerContext, budgetType: ResourceType, pdb: ApiObject, status: BudgetStatus): Promise<void> {
  const next = managedFieldsAfterUpdate(budgetType, { ...pdb, status }, pdb, EVICTION_MANAGER);
  const key = objectKey(ctx.store, budgetType, pdb.metadata.namespace, pdb.metadata.name!);
  try {
    await ctx.store.update(key, encodeForStorage(next), Number(pdb.metadata.resourceVersion));
  } catch (error) {
    if (isStorageError(error, 'Conflict') || isStorageError(error, 'NotFound')) throw new Retry();
    throw error;
  }
}
