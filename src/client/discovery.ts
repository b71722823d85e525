import type { Client } from './client.js';
import type { Resource } from './resource.js';
import { isRecord } from './status.js';

/** A served resource type as discovery describes it: how to address it, its kind and its verbs. */
export interface ApiResource extends Resource {
  readonly kind: string;
  readonly verbs: readonly string[];
  /**
   * The names of its subresources (`status`, `scale`), as its group version's list names them
   * (`deployments/scale`). `discoverResources` and `DiscoveryCache` always fill it; optional so
   * that an `ApiResource` written by hand still type-checks.
   */
  readonly subresources?: readonly string[];
}

/**
 * One served version of a group, preferred or not: its types (each with its subresources), or
 * the error its resource list failed with.
 */
export interface ServedGroupVersion {
  readonly group: string;
  readonly version: string;
  /** Whether it is the group's preferred version (its types are then also in `Discovery.resources`). */
  readonly preferred: boolean;
  /** Undefined when the list could not be read: `error` says why. */
  readonly resources?: readonly ApiResource[];
  readonly error?: unknown;
}

/** A group version whose resource list could not be read. */
export interface DiscoveryFailure {
  readonly groupVersion: string;
  readonly error: unknown;
}

/**
 * What the server serves, at the preferred version of each group. Discovery is partial when some
 * group versions failed: `resources` holds the rest, `failures` says which ones are missing (a
 * caller decides whether a partial answer is good enough, as client-go's
 * `ServerPreferredResources` with its `ErrGroupDiscoveryFailed`).
 */
export interface Discovery {
  readonly resources: readonly ApiResource[];
  readonly failures: readonly DiscoveryFailure[];
  /**
   * Every served version of every group, the preferred ones included: what a caller that must
   * address an exact `apiVersion` reads (an autoscaler's `scaleTargetRef` at a version that is
   * not the preferred one, and whether that kind has a `scale` subresource). A non-preferred
   * version whose list failed is here with its error, not in `failures`. `discoverResources`
   * and `DiscoveryCache` always fill it; optional so that a `Discovery` written by hand still
   * type-checks.
   */
  readonly groupVersions?: readonly ServedGroupVersion[];
}

/** A group version discovery lists, the path of its resource list, and whether it is its group's preferred one. */
export interface DiscoveredGroupVersion {
  readonly group: string;
  readonly version: string;
  readonly path: string;
  readonly preferred: boolean;
}

/**
 * Reads the legacy discovery documents (`/api`, `/apis`, then the resource list of every served
 * version of each group), so that types added since the last call (custom resources) are found.
 * `resources` holds the preferred versions' types, `groupVersions` every version's. A failure of
 * `/api` or `/apis` itself rejects. Nothing is kept: a loop that asks often shares a
 * `DiscoveryCache` instead.
 */
export async function discoverResources(client: Client): Promise<Discovery> {
  const groupVersions = await servedGroupVersions(client);
  const answers = await Promise.allSettled(groupVersions.map((gv) => groupVersionTypes(client, gv)));
  return discoveryOf(groupVersions, answers);
}

/** Every served version of every group (`/api`, `/apis`): two requests. Rejects when either fails. */
export async function servedGroupVersions(client: Client): Promise<DiscoveredGroupVersion[]> {
  const get = (path: string) => client.transport.request({ method: 'GET', path });
  const [core, groups] = await Promise.all([get('/api'), get('/apis')]);
  const groupVersions: DiscoveredGroupVersion[] = [];
  // The core group has no preferredVersion field: its first version is the preferred one, as upstream's.
  stringsOf(isRecord(core) ? core['versions'] : undefined).forEach((version, i) => groupVersions.push({ group: '', version, path: `/api/${version}`, preferred: i === 0 }));
  const groupList = isRecord(groups) && Array.isArray(groups['groups']) ? groups['groups'] : [];
  for (const group of groupList) {
    if (!isRecord(group) || typeof group['name'] !== 'string') continue;
    const name = group['name'];
    const versions = (Array.isArray(group['versions']) ? group['versions'] : []).flatMap((v) => (isRecord(v) && typeof v['version'] === 'string' ? [v['version']] : []));
    const stated = isRecord(group['preferredVersion']) ? group['preferredVersion']['version'] : undefined;
    const preferred = typeof stated === 'string' ? stated : versions[0];
    if (preferred !== undefined && !versions.includes(preferred)) versions.unshift(preferred);
    for (const version of versions) groupVersions.push({ group: name, version, path: `/apis/${name}/${version}`, preferred: version === preferred });
  }
  return groupVersions;
}

/** The types of one group version's resource list, each with the names of its subresources. */
export async function groupVersionTypes(client: Client, gv: DiscoveredGroupVersion): Promise<readonly ApiResource[]> {
  const doc = await client.transport.request({ method: 'GET', path: gv.path });
  const list = (isRecord(doc) && Array.isArray(doc['resources']) ? doc['resources'] : []).filter(isRecord);
  // `deployments/scale` → scale of deployments; a list may name a subresource before its resource.
  const subresources = new Map<string, string[]>();
  for (const entry of list) {
    const name = entry['name'];
    const slash = typeof name === 'string' ? name.indexOf('/') : -1;
    if (slash < 0) continue;
    const parent = (name as string).slice(0, slash);
    const named = subresources.get(parent) ?? [];
    named.push((name as string).slice(slash + 1));
    subresources.set(parent, named);
  }
  const resources: ApiResource[] = [];
  for (const entry of list) {
    if (typeof entry['name'] !== 'string' || entry['name'].includes('/')) continue;
    resources.push(
      Object.freeze({
        group: gv.group,
        version: gv.version,
        resource: entry['name'],
        namespaced: entry['namespaced'] === true,
        kind: typeof entry['kind'] === 'string' ? entry['kind'] : '',
        verbs: Object.freeze(stringsOf(entry['verbs'])),
        subresources: Object.freeze(subresources.get(entry['name']) ?? []),
      }),
    );
  }
  return resources;
}

/**
 * Group versions' answers (in the same order) as one Discovery: the preferred versions' types
 * and failures, and every version as a `ServedGroupVersion`.
 */
export function discoveryOf(groupVersions: readonly DiscoveredGroupVersion[], answers: readonly PromiseSettledResult<readonly ApiResource[]>[]): Discovery {
  const resources: ApiResource[] = [];
  const failures: DiscoveryFailure[] = [];
  const served: ServedGroupVersion[] = [];
  answers.forEach((answer, i) => {
    const { group, version, preferred } = groupVersions[i]!;
    if (answer.status === 'rejected') {
      served.push({ group, version, preferred, error: answer.reason });
      if (preferred) failures.push({ groupVersion: group === '' ? version : `${group}/${version}`, error: answer.reason });
    } else {
      served.push({ group, version, preferred, resources: answer.value });
      if (preferred) resources.push(...answer.value);
    }
  });
  return { resources, failures, groupVersions: served };
}

/**
 * `kind` at exactly `apiVersion` (`apps/v1`, `v1`), preferred version or not, as upstream's REST
 * mapper finds it: whether the group version is served, and then its type, or the error its list
 * failed with (ask again later), or neither when it serves no such kind.
 */
export function typeAtVersion(discovery: Discovery, apiVersion: string, kind: string): TypeAtVersion {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const gv = discovery.groupVersions?.find((g) => g.group === group && g.version === version);
  if (gv === undefined) return { served: false };
  if (gv.resources === undefined) return { served: true, error: gv.error };
  const type = gv.resources.find((r) => r.kind === kind);
  return type === undefined ? { served: true } : { served: true, type };
}

/** What `typeAtVersion` answers. */
export type TypeAtVersion =
  /** The group version is not served. */
  | { readonly served: false }
  /** Served: `type` when the kind is among its types; `error` when its list could not be read. */
  | { readonly served: true; readonly type?: ApiResource; readonly error?: unknown };

/** One entry of a group version's resource list, subresources (`deployments/scale`) included. */
export interface GroupVersionEntry {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
}

/**
 * The resource list of one group version (`/api/v1`, `/apis/apps/v1`), subresources included —
 * what a loop reads to learn whether a kind has a `scale` subresource, say. Undefined when the
 * server does not serve that group version (404); any other failure rejects.
 */
export async function groupVersionResources(client: Client, group: string, version: string): Promise<readonly GroupVersionEntry[] | undefined> {
  let doc: unknown;
  try {
    doc = await client.transport.request({ method: 'GET', path: group === '' ? `/api/${version}` : `/apis/${group}/${version}` });
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
  const list = isRecord(doc) && Array.isArray(doc['resources']) ? doc['resources'] : [];
  return list.filter(isRecord).map((entry) => ({
    name: String(entry['name'] ?? ''),
    kind: String(entry['kind'] ?? ''),
    namespaced: entry['namespaced'] === true,
    verbs: stringsOf(entry['verbs']),
  }));
}

/** Whether a discovered type supports every one of `verbs`. */
export const supports = (type: ApiResource, ...verbs: string[]): boolean => verbs.every((verb) => type.verbs.includes(verb));

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
