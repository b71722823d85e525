import type { Client } from './client.js';
import type { Resource } from './resource.js';
import { isRecord } from './status.js';

/** A served resource type as discovery describes it: how to address it, its kind and its verbs. */
export interface ApiResource extends Resource {
  readonly kind: string;
  readonly verbs: readonly string[];
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
}

/** A group version discovery lists, and the path of its resource list. */
export interface DiscoveredGroupVersion {
  readonly group: string;
  readonly version: string;
  readonly path: string;
}

/**
 * Reads the legacy discovery documents (`/api`, `/apis`, then each preferred group version's
 * resource list), so that types added since the last call (custom resources) are found.
 * Subresources (`pods/status`) are left out. A failure of `/api` or `/apis` itself rejects.
 * Nothing is kept: a loop that asks often shares a `DiscoveryCache` instead.
 */
export async function discoverResources(client: Client): Promise<Discovery> {
  const groupVersions = await preferredGroupVersions(client);
  const answers = await Promise.allSettled(groupVersions.map((gv) => groupVersionTypes(client, gv)));
  return discoveryOf(groupVersions, answers);
}

/** The preferred version of every served group (`/api`, `/apis`): two requests. Rejects when either fails. */
export async function preferredGroupVersions(client: Client): Promise<DiscoveredGroupVersion[]> {
  const get = (path: string) => client.transport.request({ method: 'GET', path });
  const [core, groups] = await Promise.all([get('/api'), get('/apis')]);
  const groupVersions: DiscoveredGroupVersion[] = [];
  for (const version of stringsOf(isRecord(core) ? core['versions'] : undefined)) {
    groupVersions.push({ group: '', version, path: `/api/${version}` });
  }
  const groupList = isRecord(groups) && Array.isArray(groups['groups']) ? groups['groups'] : [];
  for (const group of groupList) {
    if (!isRecord(group) || typeof group['name'] !== 'string') continue;
    const preferred = isRecord(group['preferredVersion']) ? group['preferredVersion']['version'] : undefined;
    const first = Array.isArray(group['versions']) && isRecord(group['versions'][0]) ? group['versions'][0]['version'] : undefined;
    const version = typeof preferred === 'string' ? preferred : typeof first === 'string' ? first : undefined;
    if (version !== undefined) groupVersions.push({ group: group['name'], version, path: `/apis/${group['name']}/${version}` });
  }
  return groupVersions;
}

/** The types of one group version's resource list, subresources left out. */
export async function groupVersionTypes(client: Client, gv: DiscoveredGroupVersion): Promise<readonly ApiResource[]> {
  const doc = await client.transport.request({ method: 'GET', path: gv.path });
  const list = isRecord(doc) && Array.isArray(doc['resources']) ? doc['resources'] : [];
  const resources: ApiResource[] = [];
  for (const entry of list) {
    if (!isRecord(entry) || typeof entry['name'] !== 'string' || entry['name'].includes('/')) continue;
    resources.push(
      Object.freeze({
        group: gv.group,
        version: gv.version,
        resource: entry['name'],
        namespaced: entry['namespaced'] === true,
        kind: typeof entry['kind'] === 'string' ? entry['kind'] : '',
        verbs: Object.freeze(stringsOf(entry['verbs'])),
      }),
    );
  }
  return resources;
}

/** Group versions' answers (in the same order) as one Discovery: the types of those read, the failures of the rest. */
export function discoveryOf(groupVersions: readonly DiscoveredGroupVersion[], answers: readonly PromiseSettledResult<readonly ApiResource[]>[]): Discovery {
  const resources: ApiResource[] = [];
  const failures: DiscoveryFailure[] = [];
  answers.forEach((answer, i) => {
    const { group, version } = groupVersions[i]!;
    if (answer.status === 'rejected') failures.push({ groupVersion: group === '' ? version : `${group}/${version}`, error: answer.reason });
    else resources.push(...answer.value);
  });
  return { resources, failures };
}

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
