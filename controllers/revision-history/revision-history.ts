import { canonicalJson, isStatusError, type ControllerRevision, type KubeObject, type PodTemplateSpec } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { controllerRef, type OwnerType } from '../controller-ref.js';
import { hashRevision } from './revision-hash.js';

/**
 * The ControllerRevision history DaemonSets and StatefulSets keep of their pod template, as
 * upstream's controller history: each distinct template is one revision, named
 * `<owner>-<hash>`, numbered in the order the templates were used; going back to an earlier
 * template renumbers its revision as the newest instead of creating another.
 */

/** What a revision records: the template as a strategic-merge patch that replaces the owner's (upstream's getPatch). */
export interface TemplateRevisionData {
  readonly spec: { readonly template: PodTemplateSpec & { readonly $patch: 'replace' } };
}

export function templateRevisionData(template: PodTemplateSpec): TemplateRevisionData {
  return { spec: { template: { ...template, $patch: 'replace' } } };
}

/** The template a revision recorded (what pods of that revision were made from). */
export function templateOfRevision(revision: ControllerRevision): PodTemplateSpec | undefined {
  const template = (revision.data as Partial<TemplateRevisionData> | undefined)?.spec?.template;
  if (template === undefined) return undefined;
  const { $patch: _patch, ...rest } = template;
  return rest;
}

/** Upstream's ControllerRevisionName: the owner's name (cut to 223 characters) and the hash. */
export const revisionName = (owner: string, hash: string): string => `${owner.slice(0, 223)}-${hash}`;

export interface RevisionOwner {
  readonly object: KubeObject;
  readonly type: OwnerType;
  /** The label that carries the revision's hash on the revision (`controller.kubernetes.io/hash` for StatefulSets, `controller-revision-hash` for DaemonSets). */
  readonly hashLabel: string;
}

/** The revision of `template` for `owner`, not yet stored: labels are the template's plus the hash label, the owner its controller. */
export function buildRevision(owner: RevisionOwner, template: PodTemplateSpec, revision: number, collisionCount: number | undefined): ControllerRevision {
  const data = templateRevisionData(template);
  const hash = hashRevision(data, collisionCount);
  const { name, namespace } = owner.object.metadata;
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: revisionName(name!, hash),
      namespace,
      labels: { ...(template.metadata?.labels ?? {}), [owner.hashLabel]: hash },
      ownerReferences: [controllerRef(owner.object, owner.type)],
    },
    data,
    revision,
  };
}

/** The hash a revision was stored under (its label; else the part of its name after the owner's). */
export const revisionHash = (revision: ControllerRevision, hashLabel: string): string =>
  revision.metadata.labels?.[hashLabel] ?? revision.metadata.name!.slice(revision.metadata.name!.lastIndexOf('-') + 1);

/** Whether two revisions record the same template. */
export const equalRevisions = (a: ControllerRevision, b: ControllerRevision): boolean => canonicalJson(a.data) === canonicalJson(b.data);

/** Oldest first: by revision number, then creation time, then name (upstream's byRevision). */
export function sortRevisions(revisions: readonly ControllerRevision[]): ControllerRevision[] {
  return [...revisions].sort(
    (a, b) =>
      a.revision - b.revision ||
      (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
      a.metadata.name!.localeCompare(b.metadata.name!),
  );
}

/** The number the next revision gets: one more than the newest. */
export const nextRevisionNumber = (sorted: readonly ControllerRevision[]): number => (sorted.length === 0 ? 1 : sorted[sorted.length - 1]!.revision + 1);

export interface CurrentHistory {
  /** Every revision of the owner, oldest first, as stored after this call. */
  readonly revisions: ControllerRevision[];
  /** The revision of the owner's current template. */
  readonly updateRevision: ControllerRevision;
  /** The collision count to keep in the owner's status (raised when a hash collided with another template's revision). */
  readonly collisionCount: number;
}

/**
 * Makes sure the owner's current template has a revision, as upstream's DaemonSet constructHistory
 * and StatefulSet getStatefulSetRevisions do: an existing revision with the same template is
 * reused (renumbered as the newest if it is not), duplicates of it are deleted, otherwise a new
 * one is created. A name taken by a revision of another template is a hash collision: the
 * collision count goes up and the hash is computed again.
 */
export async function ensureRevision(client: Client, owner: RevisionOwner, template: PodTemplateSpec, owned: readonly ControllerRevision[], collisionCount: number): Promise<CurrentHistory> {
  const namespace = owner.object.metadata.namespace;
  let revisions = sortRevisions(owned);
  const next = nextRevisionNumber(revisions);
  const wanted = buildRevision(owner, template, next, collisionCount);
  const equal = revisions.filter((revision) => equalRevisions(revision, wanted));
  if (equal.length > 0) {
    let kept = equal[equal.length - 1]!;
    for (const duplicate of equal.slice(0, -1)) await deleteRevision(client, duplicate);
    if (kept !== revisions[revisions.length - 1]) {
      kept = await client.update(builtin.controllerRevisions, { ...kept, revision: next }, { namespace });
    }
    revisions = sortRevisions([...revisions.filter((revision) => !equal.includes(revision)), kept]);
    return { revisions, updateRevision: kept, collisionCount };
  }
  for (let count = collisionCount; ; count++) {
    const candidate = count === collisionCount ? wanted : buildRevision(owner, template, next, count);
    try {
      const created = await client.create(builtin.controllerRevisions, candidate, { namespace });
      return { revisions: sortRevisions([...revisions, created]), updateRevision: created, collisionCount: count };
    } catch (error) {
      if (!isStatusError(error, 'AlreadyExists')) throw error;
      const existing = await client.get(builtin.controllerRevisions, candidate.metadata.name!, { namespace });
      // Ours, with this template: our cache had not seen it yet.
      if (existing.metadata.ownerReferences?.some((ref) => ref.uid === owner.object.metadata.uid) && equalRevisions(existing, candidate)) {
        return { revisions: sortRevisions([...revisions.filter((r) => r.metadata.name !== existing.metadata.name), existing]), updateRevision: existing, collisionCount: count };
      }
    }
  }
}

/**
 * Deletes the oldest revisions beyond `limit` (`revisionHistoryLimit`) among those no live pod
 * uses and that are neither `live` (the current and update revisions are always kept).
 */
export async function truncateHistory(client: Client, sorted: readonly ControllerRevision[], live: ReadonlySet<string>, limit: number): Promise<void> {
  const history = sorted.filter((revision) => !live.has(revision.metadata.name!));
  const excess = history.length - Math.max(0, limit);
  for (const revision of history.slice(0, Math.max(0, excess))) await deleteRevision(client, revision);
}

async function deleteRevision(client: Client, revision: ControllerRevision): Promise<void> {
  try {
    await client.delete(builtin.controllerRevisions, revision.metadata.name!, { namespace: revision.metadata.namespace });
  } catch (error) {
    if (!isStatusError(error, 'NotFound')) throw error;
  }
}
