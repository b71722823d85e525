import { getJson } from './api.js';

/** One listable, watchable resource the server serves. */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** `/api/v1` or `/apis/<group>/<version>` */
  readonly base: string;
}

interface ApiResourceList {
  readonly resources: readonly { name: string; kind: string; namespaced: boolean; verbs: readonly string[] }[];
}

interface ApiGroupList {
  readonly groups: readonly { name: string; preferredVersion?: { groupVersion: string; version: string }; versions: readonly { groupVersion: string; version: string }[] }[];
}

/** Every resource (built-in and custom) in its group's preferred version, from discovery. */
export async function discover(): Promise<ResourceType[]> {
  const versions: { group: string; version: string; base: string }[] = [{ group: '', version: 'v1', base: '/api/v1' }];
  const groups = await getJson<ApiGroupList>('/apis');
  for (const group of groups.groups) {
    const preferred = group.preferredVersion ?? group.versions[0];
    if (preferred !== undefined) versions.push({ group: group.name, version: preferred.version, base: `/apis/${preferred.groupVersion}` });
  }
  const lists = await Promise.all(
    versions.map(async (v) => {
      try {
        return { ...v, list: await getJson<ApiResourceList>(v.base) };
      } catch {
        return { ...v, list: { resources: [] } }; // an unavailable aggregated group: left out
      }
    }),
  );
  return lists
    .flatMap((v) =>
      v.list.resources
        .filter((r) => !r.name.includes('/') && r.verbs.includes('list') && r.verbs.includes('watch'))
        .map((r) => ({ group: v.group, version: v.version, name: r.name, kind: r.kind, namespaced: r.namespaced, base: v.base })),
    )
    .sort((a, b) => a.name.localeCompare(b.name) || a.group.localeCompare(b.group));
}

export const typeId = (type: ResourceType): string => (type.group === '' ? type.name : `${type.name}.${type.group}`);

/** The collection URL, in one namespace or across all. */
export function collectionPath(type: ResourceType, namespace: string | undefined): string {
  return type.namespaced && namespace !== undefined && namespace !== '' ? `${type.base}/namespaces/${encodeURIComponent(namespace)}/${type.name}` : `${type.base}/${type.name}`;
}
