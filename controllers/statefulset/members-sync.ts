import { isStatusError, type OwnerReference, type PersistentVolumeClaim, type Pod, type PodTemplateSpec, type StatefulSet } from '../../src/api/index.js';
import { builtin, type Client, type EventSink, type Informer, type InvolvedObject } from '../../src/client/index.js';
import type { Expectations } from '../expectations.js';
import { createPods, deletePods, isPodAvailable, isPodReady } from '../workload/index.js';
import { claimOwners } from './claim-retention.js';
import { identityLabelsMatch, memberClaims, ordinalOf, podName, podRevision, POD_INDEX_LABEL, POD_NAME_LABEL, replicaCount, startOrdinal, statefulPod } from './stateful-pod.js';

/** What one sync of a set's members needs. */
export interface MembersInput {
  readonly client: Client;
  readonly set: StatefulSet;
  readonly key: string;
  readonly expectations: Expectations;
  readonly claims: Informer<PersistentVolumeClaim>;
  /** The set's pods, claimed, named as members. */
  readonly members: readonly Pod[];
  readonly current: { readonly name: string; readonly template: PodTemplateSpec };
  readonly update: { readonly name: string; readonly template: PodTemplateSpec };
  readonly reference: OwnerReference;
  readonly nowMs: number;
  /** The loop's Events, on the set (upstream's SuccessfulCreate, FailedCreate, SuccessfulDelete, FailedDelete). */
  readonly events: EventSink;
}

const involved = (set: StatefulSet): InvolvedObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  name: set.metadata.name!,
  namespace: set.metadata.namespace,
  uid: set.metadata.uid,
  resourceVersion: set.metadata.resourceVersion,
});
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

const terminating = (pod: Pod) => pod.metadata.deletionTimestamp !== undefined;
const finished = (pod: Pod) => pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';

/**
 * Brings the members toward the spec in one pass, as upstream's updateStatefulSet: missing members
 * are created (with their claims), finished ones deleted to be recreated, members beyond the
 * replica count deleted from the highest ordinal, then the RollingUpdate deletes members of an old
 * revision from the highest ordinal down to the partition, at most maxUnavailable unhealthy at a
 * time. With OrderedReady each step waits for every member before it to be Running and Ready (and
 * available): one pod is created or deleted per pass, in ordinal order. With Parallel members are
 * created and deleted without waiting for each other.
 */
export async function syncMembers(input: MembersInput): Promise<void> {
  const { set, members, nowMs } = input;
  const start = startOrdinal(set);
  const count = replicaCount(set);
  const replicas: (Pod | undefined)[] = Array.from({ length: count }, () => undefined);
  const condemned: Pod[] = [];
  for (const pod of members) {
    const ordinal = ordinalOf(set, pod)!;
    if (ordinal >= start && ordinal < start + count) replicas[ordinal - start] = pod;
    else condemned.push(pod);
  }
  condemned.sort((a, b) => ordinalOf(set, b)! - ordinalOf(set, a)!);
  const monotonic = set.spec.podManagementPolicy !== 'Parallel';
  const minReady = set.spec.minReadySeconds ?? 0;
  const healthy = (pod: Pod | undefined): pod is Pod =>
    pod !== undefined && !terminating(pod) && pod.status?.phase === 'Running' && isPodReady(pod) && isPodAvailable(pod, minReady, nowMs);
  const firstUnhealthy = [...replicas, ...condemned].find((pod) => pod !== undefined && !healthy(pod));

  // Parallel: the missing members are made together, in slow-start batches.
  const missing: number[] = [];
  for (let index = 0; index < count; index++) {
    const ordinal = start + index;
    const pod = replicas[index];
    if (pod !== undefined && finished(pod) && !terminating(pod)) {
      // A member that ran to its end is replaced (after this delete is observed).
      await remove(input, [pod]);
      if (monotonic) return;
      continue;
    }
    if (pod === undefined) {
      if (!monotonic) {
        missing.push(ordinal);
        continue;
      }
      await createMembers(input, [ordinal]);
      return;
    }
    if (terminating(pod)) {
      if (monotonic) return;
      continue;
    }
    await enforceInvariants(input, pod, ordinal, false);
    if (monotonic && !healthy(pod)) return;
  }
  await createMembers(input, missing);

  for (const pod of condemned) {
    await enforceInvariants(input, pod, ordinalOf(set, pod)!, true);
    if (terminating(pod)) {
      if (monotonic) return;
      continue;
    }
    // Scale down waits for an unhealthy member unless it is the first unhealthy one (which only gets better by going).
    if (monotonic && !healthy(pod) && pod !== firstUnhealthy) return;
    await remove(input, [pod]);
    if (monotonic) return;
  }

  if (set.spec.updateStrategy?.type === 'OnDelete') return;
  const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
  const maxUnavailable = maxUnavailableOf(set, count);
  const unavailable = replicas.filter((pod) => !healthy(pod)).length;
  let budget = maxUnavailable - unavailable;
  const outdated: Pod[] = [];
  for (let index = count - 1; index >= partition && budget > 0; index--) {
    const pod = replicas[index];
    if (pod === undefined || terminating(pod) || podRevision(pod) === input.update.name) continue;
    outdated.push(pod);
    budget -= 1;
  }
  await remove(input, outdated);
}

/** `rollingUpdate.maxUnavailable` over the replicas, rounded down, at least 1 (upstream's getStatefulSetMaxUnavailable). */
export function maxUnavailableOf(set: StatefulSet, replicas: number): number {
  const value = set.spec.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
  const percent = typeof value === 'string' ? /^(\d+)%$/.exec(value) : null;
  const scaled = typeof value === 'number' ? value : percent ? Math.floor((Number(percent[1]) * replicas) / 100) : Number(value) || 0;
  return Math.max(1, scaled);
}

/**
 * Creates missing members and their claims (claims first: a member's volume binds them). Below the
 * partition a member is made from the current revision, at or above it from the update revision
 * (upstream's newVersionedStatefulSetPod). Several members go in slow-start batches.
 */
async function createMembers(input: MembersInput, ordinals: readonly number[]): Promise<void> {
  if (ordinals.length === 0) return;
  const { set, client, expectations, key } = input;
  const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
  const revisionOf = (ordinal: number) => (set.spec.updateStrategy?.type !== 'OnDelete' && ordinal < startOrdinal(set) + partition ? input.current : input.update);
  for (const ordinal of ordinals) await createClaims(input, ordinal, undefined, false);
  const result = await createPods({
    client,
    expectations,
    key,
    count: ordinals.length,
    pod: (index) => {
      const ordinal = ordinals[index]!;
      const revision = revisionOf(ordinal);
      return statefulPod(set, revision.template, ordinal, revision.name, input.reference);
    },
  });
  const names = ordinals.map((ordinal) => podName(set, ordinal));
  if (result.error === undefined) {
    for (const name of names) input.events.record(involved(set), 'Normal', 'SuccessfulCreate', `create Pod ${name} in StatefulSet ${set.metadata.name} successful`);
    return;
  }
  // A member of that name exists already: the cache is behind; the next pass sees it.
  if (isStatusError(result.error, 'AlreadyExists')) return;
  input.events.record(involved(set), 'Warning', 'FailedCreate', `create Pod ${names.join(', ')} in StatefulSet ${set.metadata.name} failed error: ${messageOf(result.error)}`);
  throw result.error;
}

/** Creates the member's claims that do not exist, owned as the retention policy says. */
async function createClaims(input: MembersInput, ordinal: number, pod: Pod | undefined, condemned: boolean): Promise<void> {
  const { set, client } = input;
  for (const claim of memberClaims(set, ordinal)) {
    if (input.claims.store.get(`${set.metadata.namespace}/${claim.metadata.name}`)) continue;
    const owners = claimOwners(claim, set, pod, podName(set, ordinal), condemned) ?? [];
    const member = podName(set, ordinal);
    try {
      await client.create(builtin.persistentVolumeClaims, { ...claim, metadata: { ...claim.metadata, ...(owners.length > 0 ? { ownerReferences: owners } : {}) } }, { namespace: set.metadata.namespace });
      input.events.record(involved(set), 'Normal', 'SuccessfulCreate', `create Claim ${claim.metadata.name} Pod ${member} in StatefulSet ${set.metadata.name} success`);
    } catch (error) {
      if (isStatusError(error, 'AlreadyExists')) continue;
      input.events.record(involved(set), 'Warning', 'FailedCreate', `create Claim ${claim.metadata.name} for Pod ${member} in StatefulSet ${set.metadata.name} failed error: ${messageOf(error)}`);
      throw error;
    }
  }
}

/**
 * A member's invariants (upstream's identityMatches/storageMatches and the claims' retention
 * owners): its claims exist while it is pending, they carry the owners the policy wants, and its
 * pod-name and pod-index labels are right.
 */
async function enforceInvariants(input: MembersInput, pod: Pod, ordinal: number, condemned: boolean): Promise<void> {
  const { set, client } = input;
  if (pod.status?.phase === 'Pending' && !condemned) await createClaims(input, ordinal, pod, condemned);
  for (const wanted of memberClaims(set, ordinal)) {
    const claim = input.claims.store.get(`${set.metadata.namespace}/${wanted.metadata.name}`);
    if (!claim) continue;
    const owners = claimOwners(claim, set, pod, pod.metadata.name!, condemned);
    if (owners === undefined) continue;
    const { name, namespace, resourceVersion } = claim.metadata;
    await client.patch(builtin.persistentVolumeClaims, name!, { metadata: { resourceVersion, ownerReferences: owners.length > 0 ? owners : null } }, { type: 'merge', namespace });
  }
  if (!identityLabelsMatch(set, pod, ordinal)) {
    const { name, namespace, resourceVersion } = pod.metadata;
    await client.patch(builtin.pods, name!, { metadata: { resourceVersion, labels: { [POD_NAME_LABEL]: name!, [POD_INDEX_LABEL]: String(ordinal) } } }, { type: 'merge', namespace });
  }
}

async function remove(input: MembersInput, pods: readonly Pod[]): Promise<void> {
  if (pods.length === 0) return;
  const result = await deletePods({ client: input.client, expectations: input.expectations, key: input.key, pods });
  const set = input.set.metadata.name;
  const names = pods.map((pod) => pod.metadata.name).join(', ');
  if (result.error !== undefined) {
    input.events.record(involved(input.set), 'Warning', 'FailedDelete', `delete Pod ${names} in StatefulSet ${set} failed error: ${messageOf(result.error)}`);
    throw result.error;
  }
  for (const pod of pods) input.events.record(involved(input.set), 'Normal', 'SuccessfulDelete', `delete Pod ${pod.metadata.name} in StatefulSet ${set} successful`);
}
