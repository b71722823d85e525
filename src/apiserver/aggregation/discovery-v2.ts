/**
 * A remote group-version's APIResourceList (what its discovery check read) in the shape of
 * aggregated discovery (`apidiscovery.k8s.io/v2` APIVersionDiscovery), for the `/apis` document
 * clients ask for with `Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`.
 * svc does not serve that document yet; whoever adds it merges these entries for the remote
 * groups (`Aggregator.discoveryV2`). A version whose check failed is `Stale`, as upstream marks it.
 */

interface LegacyResource {
  readonly name: string;
  readonly singularName?: string;
  readonly namespaced?: boolean;
  readonly kind?: string;
  readonly group?: string;
  readonly version?: string;
  readonly verbs?: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
}

export interface ResourceDiscovery {
  readonly resource: string;
  readonly responseKind: { readonly group: string; readonly version: string; readonly kind: string };
  readonly scope: 'Namespaced' | 'Cluster';
  readonly singularResource: string;
  readonly verbs: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly subresources?: readonly {
    readonly subresource: string;
    readonly responseKind: { readonly group: string; readonly version: string; readonly kind: string };
    readonly verbs: readonly string[];
  }[];
}

export interface VersionDiscovery {
  readonly version: string;
  readonly resources: readonly ResourceDiscovery[];
  readonly freshness: 'Current' | 'Stale';
}

const isResourceList = (value: unknown): value is { resources: LegacyResource[] } =>
  typeof value === 'object' && value !== null && Array.isArray((value as { resources?: unknown }).resources);

export function versionDiscovery(group: string, version: string, document: unknown, fresh: boolean): VersionDiscovery {
  const listed = isResourceList(document) ? document.resources.filter((r) => typeof r?.name === 'string') : [];
  const top = listed.filter((r) => !r.name.includes('/'));
  const resources = top.map((r): ResourceDiscovery => {
    const subresources = listed
      .filter((s) => s.name.startsWith(`${r.name}/`))
      .map((s) => ({
        subresource: s.name.slice(r.name.length + 1),
        responseKind: { group: s.group ?? group, version: s.version ?? version, kind: s.kind ?? '' },
        verbs: s.verbs ?? [],
      }));
    return {
      resource: r.name,
      responseKind: { group, version, kind: r.kind ?? '' },
      scope: r.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: r.singularName ?? '',
      verbs: r.verbs ?? [],
      ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}),
      ...(r.categories?.length ? { categories: r.categories } : {}),
      ...(subresources.length ? { subresources } : {}),
    };
  });
  return { version, resources, freshness: fresh ? 'Current' : 'Stale' };
}
