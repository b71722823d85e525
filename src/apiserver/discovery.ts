import { upstreamGroupName, type ResourceRegistry, type ResourceType } from '../api/index.js';

type GroupDocument = NonNullable<ReturnType<typeof groupDocument>>;

/** A group document under another name (its versions' groupVersions follow). */
function renamed(doc: GroupDocument, from: string, to: string): GroupDocument {
  const swap = (gv: string) => (gv.startsWith(`${from}/`) ? `${to}${gv.slice(from.length)}` : gv);
  return {
    name: to,
    versions: doc.versions.map((v) => ({ ...v, groupVersion: swap(v.groupVersion) })),
    preferredVersion: { ...doc.preferredVersion, groupVersion: swap(doc.preferredVersion.groupVersion) },
  };
}

/**
 * The legacy discovery documents kubectl and client-go read to map kinds to resources:
 * `/api`, `/apis`, `/apis/<group>`, and the resource lists of each group version.
 * (Aggregated discovery (v2) is not served: clients fall back to these.)
 */

export function apiVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDocument(registry: ResourceRegistry, name: string) {
  const group = registry.groups().find((g) => g.name === name);
  if (!group) return undefined;
  const versions = group.versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return {
    name,
    versions,
    preferredVersion: { groupVersion: `${name}/${group.preferredVersion}`, version: group.preferredVersion },
  };
}

export function apiGroupList(registry: ResourceRegistry) {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry
      .groups()
      .filter((g) => g.name !== '')
      .flatMap((g) => {
        const doc = groupDocument(registry, g.name)!;
        // The groups svc renames (`*.svc.io`) are listed by their upstream names too: kubectl maps
        // the manifests it is given (apiextensions.k8s.io/v1 CRDs) to resources through this list.
        const upstream = upstreamGroupName(g.name);
        return upstream === g.name ? [doc] : [doc, renamed(doc, g.name, upstream)];
      }),
  };
}

export function apiGroup(registry: ResourceRegistry, name: string) {
  const doc = name === '' ? undefined : groupDocument(registry, name);
  return doc && { kind: 'APIGroup', apiVersion: 'v1', ...doc };
}

function resourceEntry(type: ResourceType) {
  return {
    name: type.resource,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: type.verbs,
    ...(type.shortNames.length ? { shortNames: type.shortNames } : {}),
    ...(type.categories?.length ? { categories: type.categories } : {}),
  };
}

/** `asGroup`: the group name the client asked with (upstream `*.k8s.io`), which the answer keeps. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string, asGroup = group) {
  const types = registry.resourcesOf(group, version);
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${asGroup}/${version}`,
    resources: types.map(resourceEntry),
  };
}

/**
 * `/version`: the Kubernetes API level svc answers as, and svc's own version. 1.33 is within
 * kubectl 1.32's supported skew, so the kubectl on this machine talks to it without warnings.
 */
export function versionInfo(svcVersion: string) {
  return {
    major: '1',
    minor: '33',
    gitVersion: `v1.33.0+svc-${svcVersion}`,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: '',
    goVersion: '',
    compiler: 'node',
    platform: `${process.platform}/${process.arch}`,
  };
}
